/*
 * The MCP sidebar's "Try it": pick a tool, fill in a form generated from its input schema (or type
 * the arguments as JSON) and run it through the real endpoint and flow (the admin route in
 * nodes/mcp-flow-server/sidebar-routes.ts). A user without the write permission sees Run off and why.
 */
(function () {
    "use strict";
    var kit = window.flowmcpSidebarKit = window.flowmcpSidebarKit || {};
    // kit.t and the other helpers are looked up when called: the kit's own file may run after this one.
    if (kit.renderTryIt) {
        return;
    }
    var ROUTE = "mcp-sidebar/endpoints";
    function describeXhr(xhr) {
        return kit.describeXhr(xhr);
    }
    function formatMs(ms) {
        return kit.formatMs(ms);
    }

    /** `state` is what the user chose for this endpoint (kept across refreshes); `mayRun` the write permission. */
    function renderTryIt(endpoint, state, mayRun) {
        var box = $('<details class="flowmcp-try"></details>');
        if (state.open) {
            box.attr("open", "open");
        }
        $("<summary></summary>").text(kit.t("try.title")).appendTo(box);
        var body = $('<div class="flowmcp-try-body"></div>').appendTo(box);
        box.on("toggle", function () {
            state.open = box.prop("open");
            if (state.open && body.children().length === 0) {
                loadTools(endpoint, body, state, mayRun);
            }
        });
        if (state.open) {
            loadTools(endpoint, body, state, mayRun);
        }
        return box;
    }

    function loadTools(endpoint, body, state, mayRun) {
        body.empty();
        if (endpoint.state !== "serving") {
            $('<div class="flowmcp-sidebar-message"></div>').text(kit.t("try.notServing")).appendTo(body);
            return;
        }
        $('<div class="flowmcp-sidebar-message"></div>').text(kit.t("loading")).appendTo(body);
        $.ajax({ url: ROUTE + "/" + encodeURIComponent(endpoint.id) + "/tools", dataType: "json", cache: false }).then(function (listing) {
            body.empty();
            // A runtime older than Required scopes sends no map: no tool needs a scope there.
            buildTryForm(endpoint, body, state, listing.tools || [], mayRun, listing.allowedGroups || {}, listing.requiredScopes || {});
        }, function (xhr) {
            body.empty();
            $('<div class="flowmcp-error"></div>').text(kit.t("try.requestFailed", { message: describeXhr(xhr) })).appendTo(body);
        });
    }

    function buildTryForm(endpoint, body, state, tools, mayRun, allowedGroups, requiredScopes) {
        if (tools.length === 0) {
            $('<div class="flowmcp-sidebar-message"></div>').text(kit.t("try.noTools")).appendTo(body);
            return;
        }
        if (!tools.some(function (tool) { return tool.name === state.tool; })) {
            state.tool = tools[0].name;
            state.values = {};
        }
        var toolRow = $('<div class="flowmcp-try-row"></div>').appendTo(body);
        $("<label></label>").text(kit.t("try.tool")).appendTo(toolRow);
        var select = $('<select class="flowmcp-try-tool"></select>').appendTo(toolRow);
        tools.forEach(function (tool) {
            $("<option></option>").val(tool.name).text(tool.title ? tool.title + " (" + tool.name + ")" : tool.name).appendTo(select);
        });
        select.val(state.tool);

        var description = $('<div class="flowmcp-try-description"></div>').appendTo(body);
        // Who may use the chosen tool besides the editor (docs/access.md): only said where callers sign in.
        var access = $('<div class="flowmcp-try-access"></div>').appendTo(body).toggle(endpoint.access === "oauth");
        // Scopes do not hide a tool; a token without them is sent back to sign in (step-up).
        var scopes = $('<div class="flowmcp-try-scopes"></div>').appendTo(body).hide();
        var modes = $('<div class="flowmcp-try-modes"></div>').appendTo(body);
        var formButton = $('<button type="button" class="red-ui-button red-ui-button-small flowmcp-mode-form"></button>').text(kit.t("try.form")).appendTo(modes);
        var jsonButton = $('<button type="button" class="red-ui-button red-ui-button-small flowmcp-mode-json"></button>').text(kit.t("try.json")).appendTo(modes);
        var form = $('<div class="flowmcp-try-form"></div>').appendTo(body);
        var jsonBox = $('<div class="flowmcp-try-json"></div>').appendTo(body);
        $("<label></label>").text(kit.t("try.arguments")).appendTo(jsonBox);
        var jsonText = $('<textarea class="flowmcp-try-json-text" rows="6" spellcheck="false"></textarea>').appendTo(jsonBox);
        var confirm = null;
        if (endpoint.access === "oauth" && endpoint.groups.length > 0) {
            var confirmRow = $('<label class="flowmcp-try-confirm"></label>').appendTo(body);
            confirm = $('<input type="checkbox" class="flowmcp-try-confirm-groups">').appendTo(confirmRow);
            $("<span></span>").text(" " + kit.t("try.confirmGroups", { groups: endpoint.groups.join(", ") })).appendTo(confirmRow);
        }
        var runRow = $('<div class="flowmcp-try-row"></div>').appendTo(body);
        var run = $('<button type="button" class="red-ui-button flowmcp-try-run"></button>').text(kit.t("try.run")).appendTo(runRow);
        if (!mayRun) {
            // Said before the user fills anything in, rather than by a 403 after Run.
            run.prop("disabled", true).attr("title", kit.t("try.readOnly"));
            $('<div class="flowmcp-try-read-only"></div>').text(kit.t("try.readOnly")).appendTo(runRow);
        }
        var output = $('<div class="flowmcp-try-output"></div>').appendTo(body);
        if (state.result) {
            showOutcome(output, state.result);
        }

        var fields = [];
        function currentTool() {
            return tools.filter(function (tool) { return tool.name === state.tool; })[0];
        }
        function showTool() {
            var tool = currentTool();
            description.text(tool.description || "");
            var groups = allowedGroups[tool.name];
            access.text(groups ? kit.t("try.allowedGroups", { groups: groups.join(", ") }) : kit.t("try.everyone"));
            var needed = kit.scopeList(requiredScopes[tool.name]);
            scopes.text(needed ? kit.t("try.requiredScopes", { scopes: needed }) : "").toggle(endpoint.access === "oauth" && Boolean(needed));
            fields = buildFields(form, tool.inputSchema || {}, state.values);
            if (state.mode === "json" && !state.json) {
                state.json = JSON.stringify(formArguments(fields).value, null, 2);
            }
            jsonText.val(state.json);
            showMode();
        }
        // What Run said belongs to the arguments it ran with: another tool or mode starts clean.
        function clearOutcome() {
            state.result = null;
            output.empty();
        }
        function showMode() {
            form.toggle(state.mode === "form");
            jsonBox.toggle(state.mode === "json");
            formButton.toggleClass("selected", state.mode === "form");
            jsonButton.toggleClass("selected", state.mode === "json");
        }
        select.on("change", function () {
            state.tool = select.val();
            state.values = {};
            state.json = "";
            clearOutcome();
            showTool();
        });
        formButton.on("click", function () {
            if (state.mode !== "form") {
                clearOutcome();
            }
            state.mode = "form";
            showMode();
        });
        jsonButton.on("click", function () {
            // The raw JSON starts from what the form holds, so switching loses nothing.
            var fromForm = formArguments(fields);
            state.json = JSON.stringify(fromForm.value, null, 2);
            jsonText.val(state.json);
            if (state.mode !== "json") {
                clearOutcome();
            }
            state.mode = "json";
            showMode();
        });
        jsonText.on("input", function () {
            state.json = jsonText.val();
        });
        run.on("click", function () {
            if (!mayRun) {
                return;
            }
            var request = { tool: state.tool, confirmGroups: Boolean(confirm && confirm.prop("checked")) };
            if (state.mode === "json") {
                request.argumentsJson = jsonText.val();
            } else {
                var fromForm = formArguments(fields);
                if (fromForm.problems.length > 0) {
                    showProblemsOnly(output, fromForm.problems);
                    return;
                }
                request.arguments = fromForm.value;
            }
            run.prop("disabled", true).text(kit.t("try.running"));
            output.empty();
            $.ajax({
                url: ROUTE + "/" + encodeURIComponent(endpoint.id) + "/try",
                method: "POST",
                contentType: "application/json",
                data: JSON.stringify(request),
                dataType: "json"
            }).then(function (outcome) {
                state.result = outcome;
                showOutcome(output, outcome);
                kit.refreshSoon();
            }, function (xhr) {
                state.result = null;
                output.empty();
                $('<div class="flowmcp-error flowmcp-try-refused"></div>').text(describeXhr(xhr)).appendTo(output);
            }).always(function () {
                run.prop("disabled", false).text(kit.t("try.run"));
            });
        });
        showTool();
    }

    /** One input per top-level property of an object schema; anything else is edited as JSON. */
    function buildFields(form, schema, values) {
        form.empty();
        var properties = (schema && schema.properties) || {};
        var required = (schema && schema.required) || [];
        return Object.keys(properties).map(function (name) {
            var property = properties[name] || {};
            var type = Array.isArray(property.type) ? property.type.filter(function (x) { return x !== "null"; })[0] : property.type;
            var row = $('<div class="flowmcp-try-field"></div>').attr("data-argument", name).appendTo(form);
            var label = $("<label></label>").text(property.title || name).appendTo(row);
            var isRequired = required.indexOf(name) !== -1;
            if (isRequired) {
                $('<span class="flowmcp-required"></span>').text(" *").attr("title", kit.t("try.required")).appendTo(label);
            }
            var input;
            var kind;
            if (Array.isArray(property.enum) && property.enum.every(function (x) { return typeof x === "string"; })) {
                kind = "enum";
                input = $("<select></select>");
                $("<option></option>").val("").text("").appendTo(input);
                property.enum.forEach(function (option) { $("<option></option>").val(option).text(option).appendTo(input); });
            } else if (type === "boolean") {
                kind = "boolean";
                input = $('<input type="checkbox">');
            } else if (type === "number" || type === "integer") {
                kind = "number";
                input = $('<input type="number">').attr("step", type === "integer" ? "1" : "any");
            } else if (type === "string") {
                kind = "string";
                input = $('<input type="text">');
            } else {
                kind = "json";
                input = $('<textarea rows="3" spellcheck="false"></textarea>').attr("placeholder", kit.t("try.jsonValue"));
            }
            input.addClass("flowmcp-try-input").attr("name", name).appendTo(row);
            if (property.description) {
                $('<div class="flowmcp-try-hint"></div>').text(property.description).appendTo(row);
            }
            if (Object.prototype.hasOwnProperty.call(values, name)) {
                if (kind === "boolean") {
                    input.prop("checked", values[name] === true);
                } else {
                    input.val(values[name]);
                }
            }
            input.on("input change", function () {
                values[name] = kind === "boolean" ? input.prop("checked") : input.val();
            });
            return { name: name, kind: kind, input: input, required: isRequired };
        });
    }

    /** The form as arguments: empty optional fields are left out; the endpoint checks the rest. */
    function formArguments(fields) {
        var value = {};
        var problems = [];
        fields.forEach(function (field) {
            if (field.kind === "boolean") {
                if (field.input.prop("checked") || field.required) {
                    value[field.name] = field.input.prop("checked");
                }
                return;
            }
            var text = String(field.input.val() || "");
            if (text === "") {
                return;
            }
            if (field.kind === "number") {
                value[field.name] = Number(text);
            } else if (field.kind === "json") {
                try {
                    value[field.name] = JSON.parse(text);
                } catch (e) {
                    problems.push(kit.t("try.formProblem", { field: field.name }));
                }
            } else {
                value[field.name] = text;
            }
        });
        return { value: value, problems: problems };
    }

    function showProblemsOnly(output, problems) {
        output.empty();
        var list = $('<ul class="flowmcp-try-problems"></ul>').appendTo(output);
        problems.forEach(function (problem) { $("<li></li>").text(problem).appendTo(list); });
    }

    function showOutcome(output, outcome) {
        output.empty();
        var head = $('<div class="flowmcp-try-head"></div>').appendTo(output);
        kit.badge("flowmcp-try-status", "data-status", outcome.status, kit.statusText(outcome.status)).addClass("flowmcp-call-status flowmcp-call-status-" + outcome.status).appendTo(head);
        $('<span class="flowmcp-try-duration"></span>').text(kit.t("try.duration", { ms: formatMs(outcome.durationMs) })).appendTo(head);
        if (outcome.error) {
            $('<div class="flowmcp-error flowmcp-try-protocol-error"></div>').text(outcome.error.message + " (" + outcome.error.code + ")").appendTo(output);
        }
        if (outcome.problems && outcome.problems.length > 0) {
            $("<div></div>").text(kit.t("try.problems")).appendTo(output);
            var problems = $('<ul class="flowmcp-try-problems"></ul>').appendTo(output);
            outcome.problems.forEach(function (problem) {
                $("<li></li>").attr("data-argument", problem.argument).text(problem.argument + ": " + problem.message).appendTo(problems);
            });
        }
        var result = outcome.result;
        if (!result) {
            return;
        }
        var contentBox = $('<div class="flowmcp-try-content"></div>').toggleClass("flowmcp-is-error", result.isError === true).appendTo(output);
        $('<div class="flowmcp-section-title"></div>').text(kit.t("try.content")).appendTo(contentBox);
        var items = result.content || [];
        if (items.length === 0) {
            $("<div></div>").text(kit.t("try.noContent")).appendTo(contentBox);
        }
        items.forEach(function (item) {
            if (item.type === "text") {
                $('<pre class="flowmcp-try-text"></pre>').text(item.text).appendTo(contentBox);
            } else if (item.type === "image" && /^image\/(png|jpeg|gif|webp)$/.test(item.mimeType || "")) {
                // Only raster types: an SVG could carry script into the editor's page.
                $('<img class="flowmcp-try-image" alt="">').attr("src", "data:" + item.mimeType + ";base64," + item.data).appendTo(contentBox);
            } else if (item.type === "resource_link") {
                $('<div class="flowmcp-try-link"></div>').text(kit.t("try.resourceLink", { uri: item.uri })).appendTo(contentBox);
            } else {
                $('<pre class="flowmcp-try-other"></pre>').text(JSON.stringify(item, null, 2)).appendTo(contentBox);
            }
        });
        if (result.structuredContent !== undefined) {
            var structured = $('<div class="flowmcp-try-structured"></div>').appendTo(output);
            $('<div class="flowmcp-section-title"></div>').text(kit.t("try.structured")).appendTo(structured);
            $("<pre></pre>").text(JSON.stringify(result.structuredContent, null, 2)).appendTo(structured);
        }
    }

    kit.renderTryIt = renderTryIt;
    kit.tryStyle = [
        ".flowmcp-try-row, .flowmcp-try-field { margin: 4px 0; }",
        ".flowmcp-try-field label, .flowmcp-try-row label { display: block; }",
        ".flowmcp-try-field input[type=text], .flowmcp-try-field input[type=number], .flowmcp-try-field select, .flowmcp-try-field textarea, .flowmcp-try-json textarea { width: 100%; box-sizing: border-box; }",
        // Node-RED gives every select a fixed width; tool names get the whole row.
        ".flowmcp-sidebar select.flowmcp-try-tool { width: 100%; max-width: 100%; box-sizing: border-box; }",
        ".flowmcp-try-modes .selected { font-weight: bold; }",
        ".flowmcp-try-hint, .flowmcp-try-description, .flowmcp-try-read-only, .flowmcp-try-scopes { font-size: 0.9em; color: var(--red-ui-secondary-text-color, #777); }",
        ".flowmcp-try-head { display: flex; gap: 8px; margin-top: 6px; }",
        ".flowmcp-try-status { font-weight: bold; }",
        ".flowmcp-try-content pre, .flowmcp-try-structured pre { white-space: pre-wrap; word-break: break-word; max-height: 300px; overflow: auto; }",
        ".flowmcp-try-image { max-width: 100%; }"
    ];
    if (kit.startSidebar) {
        kit.startSidebar();
    }
})();
