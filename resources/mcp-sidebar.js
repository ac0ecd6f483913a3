/*
 * The editor's MCP sidebar tab: every MCP endpoint of this Node-RED with its URL, access, state,
 * counts and last error; copy-ready commands for Claude Code, Codex, VS Code and Cursor; "Try it"
 * (a form generated from a tool's input schema, or raw JSON, run through the real endpoint and flow);
 * and the endpoint's recent calls. Its data comes from the admin routes in
 * nodes/mcp-flow-server/sidebar-routes.ts; every text from the mcp-flow-server catalog
 * (mcp-flow-server.sidebar.*). Loaded by mcp-flow-server.html; loading it again changes nothing.
 */
(function () {
    "use strict";
    if (window.flowmcpSidebar || typeof RED === "undefined" || !RED.sidebar) {
        return;
    }
    var NS = "@flowmcp/node-red-mcp/mcp-flow-server:mcp-flow-server.sidebar.";
    var ROUTE = "mcp-sidebar/endpoints";
    var FLOW_SERVER = "mcp-flow-server";

    function t(key, params) {
        return RED._(NS + key, params);
    }

    var content = $('<div class="flowmcp-sidebar"></div>');
    var toolbar = $('<div></div>');
    var list = $('<div class="flowmcp-sidebar-list"></div>').appendTo(content);
    var message = $('<div class="flowmcp-sidebar-message"></div>').text(t("loading")).appendTo(list);
    $('<button type="button" class="red-ui-sidebar-header-button flowmcp-sidebar-refresh"><i class="fa fa-refresh"></i></button>')
        .attr("title", t("refresh"))
        .on("click", function () { refresh(true); })
        .appendTo(toolbar);

    // Per endpoint id, what the user chose, so a refresh does not wipe a half-filled form.
    var kept = {};
    var pending = null;
    var fullPending = false;
    var POLL_MS = 5000;

    function keptFor(id) {
        if (!kept[id]) {
            kept[id] = { tool: "", mode: "form", json: "", values: {}, open: false, result: null };
        }
        return kept[id];
    }

    /**
     * Loads the list. `full` rebuilds every card (after a deploy: tools may have changed); otherwise
     * cards are updated in place, and only a card whose state changed is rebuilt, so a form being
     * filled in keeps its focus while recent calls come in.
     */
    function refresh(full) {
        return $.ajax({ url: ROUTE, dataType: "json", cache: false }).then(function (data) {
            var endpoints = data.endpoints || [];
            if (full || !update(endpoints)) {
                render(endpoints);
            }
        }, function (xhr) {
            list.empty();
            $('<div class="flowmcp-sidebar-message flowmcp-error"></div>')
                .text(t("loadFailed", { message: describeXhr(xhr) }))
                .appendTo(list);
        });
    }

    /** A refresh soon, coalescing bursts (a deploy changes every endpoint's status at once). */
    function refreshSoon(full) {
        if (!content.is(":visible")) {
            return;
        }
        fullPending = fullPending || full === true;
        clearTimeout(pending);
        pending = setTimeout(function () {
            var wasFull = fullPending;
            fullPending = false;
            refresh(wasFull);
        }, 300);
    }

    /** False when the list of endpoints changed, so the caller renders it anew. */
    function update(endpoints) {
        var cards = list.children(".flowmcp-endpoint");
        if (cards.length !== endpoints.length) {
            return false;
        }
        for (var i = 0; i < endpoints.length; i++) {
            if ($(cards[i]).attr("data-endpoint-id") !== endpoints[i].id) {
                return false;
            }
        }
        endpoints.forEach(function (endpoint, index) {
            var card = $(cards[index]);
            if (card.find(".flowmcp-state").attr("data-state") !== endpoint.state) {
                card.replaceWith(renderEndpoint(endpoint, true));
                return;
            }
            var fresh = renderEndpoint(endpoint, false);
            ["flowmcp-endpoint-header", "flowmcp-facts", "flowmcp-connect", "flowmcp-recent"].forEach(function (part) {
                card.children("." + part).replaceWith(fresh.children("." + part));
            });
        });
        return true;
    }

    function describeXhr(xhr) {
        var body = xhr && xhr.responseJSON;
        if (body && body.message) {
            return body.message;
        }
        return (xhr && (xhr.status + " " + (xhr.statusText || ""))) || "?";
    }

    function render(endpoints) {
        list.empty();
        if (endpoints.length === 0) {
            $('<div class="flowmcp-sidebar-message"></div>').text(t("none")).appendTo(list);
            return;
        }
        endpoints.forEach(function (endpoint) {
            list.append(renderEndpoint(endpoint, true));
        });
    }

    /** A state shown in words: its class says the kind and the value (styled below), `attribute` the value. */
    function badge(kind, attribute, value, text) {
        return $("<span></span>").addClass(kind + " " + kind + "-" + value).attr(attribute, value).text(text);
    }

    /** One endpoint's card; without `withTry` only the parts an in-place update replaces. */
    function renderEndpoint(endpoint, withTry) {
        var card = $('<div class="flowmcp-endpoint"></div>').attr("data-endpoint-id", endpoint.id);
        var header = $('<div class="flowmcp-endpoint-header"></div>').appendTo(card);
        badge("flowmcp-state", "data-state", endpoint.state, t("state." + endpoint.state)).appendTo(header);
        $('<span class="flowmcp-endpoint-name"></span>').text(endpoint.name).appendTo(header);
        $('<button type="button" class="red-ui-button red-ui-button-small flowmcp-show-node"><i class="fa fa-search"></i></button>')
            .attr("title", t("showNode"))
            .on("click", function () { RED.view.reveal(endpoint.id); })
            .appendTo(header);

        var facts = $('<table class="flowmcp-facts"></table>').appendTo(card);
        addFact(facts, "url", endpoint.url ? $('<code class="flowmcp-url"></code>').text(endpoint.url) : $("<span></span>").text(t("noUrl")));
        addFact(facts, "access", $('<span class="flowmcp-access"></span>').text(describeAccess(endpoint)));
        addFact(facts, "catalog", $('<span class="flowmcp-counts"></span>').text(describeCounts(endpoint)));
        if (endpoint.lastError) {
            addFact(facts, "lastError", $('<span class="flowmcp-last-error flowmcp-error"></span>')
                .text(endpoint.lastError.message)
                .attr("title", new Date(endpoint.lastError.at).toLocaleString()));
        }
        if (endpoint.commands) {
            card.append(renderCommands(endpoint.commands));
        }
        if (withTry) {
            card.append(renderTryIt(endpoint));
        }
        card.append(renderRecent(endpoint.recentCalls || [], endpoint.access === "local"));
        return card;
    }

    function addFact(table, key, value) {
        var row = $("<tr></tr>").attr("data-fact", key).appendTo(table);
        $("<th></th>").text(t("field." + key)).appendTo(row);
        $("<td></td>").append(value).appendTo(row);
    }

    function describeAccess(endpoint) {
        if (endpoint.access !== "oauth") {
            return t("access.local");
        }
        var slug = endpoint.authSlug || "?";
        return endpoint.groups.length > 0 ? t("access.oauthGroups", { slug: slug, groups: endpoint.groups.join(", ") }) : t("access.oauth", { slug: slug });
    }

    function describeCounts(endpoint) {
        var parts = [t("counts.tools", { count: endpoint.tools })];
        if (endpoint.resources > 0) {
            parts.push(t("counts.resources", { count: endpoint.resources }));
        }
        if (endpoint.prompts > 0) {
            parts.push(t("counts.prompts", { count: endpoint.prompts }));
        }
        return parts.join(", ");
    }

    function renderCommands(commands) {
        var box = $('<div class="flowmcp-connect"></div>');
        $('<div class="flowmcp-section-title"></div>').text(t("connect.title")).appendTo(box);
        ["claude", "codex", "vscode", "cursor"].forEach(function (client) {
            var row = $('<div class="flowmcp-command"></div>').attr("data-client", client).appendTo(box);
            var head = $('<div class="flowmcp-command-head"></div>').appendTo(row);
            $("<span></span>").text(t("connect." + client)).appendTo(head);
            var button = $('<button type="button" class="red-ui-button red-ui-button-small flowmcp-copy"><i class="fa fa-clipboard"></i></button>')
                .attr("title", t("connect.copy"))
                .appendTo(head);
            $('<pre class="flowmcp-command-text"></pre>').text(commands[client]).appendTo(row);
            button.on("click", function () {
                RED.clipboard.copyText(commands[client], button, NS + "connect.copied");
            });
        });
        (commands.notes || []).forEach(function (note) {
            $('<div class="flowmcp-note"></div>').attr("data-note", note).text(t("notes." + note)).appendTo(box);
        });
        return box;
    }

    // ---- Try it ------------------------------------------------------------------------------

    function renderTryIt(endpoint) {
        var state = keptFor(endpoint.id);
        var box = $('<details class="flowmcp-try"></details>');
        if (state.open) {
            box.attr("open", "open");
        }
        $("<summary></summary>").text(t("try.title")).appendTo(box);
        var body = $('<div class="flowmcp-try-body"></div>').appendTo(box);
        box.on("toggle", function () {
            state.open = box.prop("open");
            if (state.open && body.children().length === 0) {
                loadTools(endpoint, body, state);
            }
        });
        if (state.open) {
            loadTools(endpoint, body, state);
        }
        return box;
    }

    function loadTools(endpoint, body, state) {
        body.empty();
        if (endpoint.state !== "serving") {
            $('<div class="flowmcp-sidebar-message"></div>').text(t("try.notServing")).appendTo(body);
            return;
        }
        $('<div class="flowmcp-sidebar-message"></div>').text(t("loading")).appendTo(body);
        $.ajax({ url: ROUTE + "/" + encodeURIComponent(endpoint.id) + "/tools", dataType: "json", cache: false }).then(function (listing) {
            body.empty();
            buildTryForm(endpoint, body, state, listing.tools || []);
        }, function (xhr) {
            body.empty();
            $('<div class="flowmcp-error"></div>').text(t("try.requestFailed", { message: describeXhr(xhr) })).appendTo(body);
        });
    }

    function buildTryForm(endpoint, body, state, tools) {
        if (tools.length === 0) {
            $('<div class="flowmcp-sidebar-message"></div>').text(t("try.noTools")).appendTo(body);
            return;
        }
        if (!tools.some(function (tool) { return tool.name === state.tool; })) {
            state.tool = tools[0].name;
            state.values = {};
        }
        var toolRow = $('<div class="flowmcp-try-row"></div>').appendTo(body);
        $("<label></label>").text(t("try.tool")).appendTo(toolRow);
        var select = $('<select class="flowmcp-try-tool"></select>').appendTo(toolRow);
        tools.forEach(function (tool) {
            $("<option></option>").val(tool.name).text(tool.title ? tool.title + " (" + tool.name + ")" : tool.name).appendTo(select);
        });
        select.val(state.tool);

        var description = $('<div class="flowmcp-try-description"></div>').appendTo(body);
        var modes = $('<div class="flowmcp-try-modes"></div>').appendTo(body);
        var formButton = $('<button type="button" class="red-ui-button red-ui-button-small flowmcp-mode-form"></button>').text(t("try.form")).appendTo(modes);
        var jsonButton = $('<button type="button" class="red-ui-button red-ui-button-small flowmcp-mode-json"></button>').text(t("try.json")).appendTo(modes);
        var form = $('<div class="flowmcp-try-form"></div>').appendTo(body);
        var jsonBox = $('<div class="flowmcp-try-json"></div>').appendTo(body);
        $("<label></label>").text(t("try.arguments")).appendTo(jsonBox);
        var jsonText = $('<textarea class="flowmcp-try-json-text" rows="6" spellcheck="false"></textarea>').appendTo(jsonBox);
        var confirm = null;
        if (endpoint.access === "oauth" && endpoint.groups.length > 0) {
            var confirmRow = $('<label class="flowmcp-try-confirm"></label>').appendTo(body);
            confirm = $('<input type="checkbox" class="flowmcp-try-confirm-groups">').appendTo(confirmRow);
            $("<span></span>").text(" " + t("try.confirmGroups", { groups: endpoint.groups.join(", ") })).appendTo(confirmRow);
        }
        var run = $('<button type="button" class="red-ui-button flowmcp-try-run"></button>').text(t("try.run")).appendTo($('<div class="flowmcp-try-row"></div>').appendTo(body));
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
            fields = buildFields(form, tool.inputSchema || {}, state.values);
            if (state.mode === "json" && !state.json) {
                state.json = JSON.stringify(formArguments(fields).value, null, 2);
            }
            jsonText.val(state.json);
            showMode();
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
            showTool();
        });
        formButton.on("click", function () {
            state.mode = "form";
            showMode();
        });
        jsonButton.on("click", function () {
            // The raw JSON starts from what the form holds, so switching loses nothing.
            var fromForm = formArguments(fields);
            state.json = JSON.stringify(fromForm.value, null, 2);
            jsonText.val(state.json);
            state.mode = "json";
            showMode();
        });
        jsonText.on("input", function () {
            state.json = jsonText.val();
        });
        run.on("click", function () {
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
            run.prop("disabled", true).text(t("try.running"));
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
                refreshSoon();
            }, function (xhr) {
                state.result = null;
                output.empty();
                $('<div class="flowmcp-error flowmcp-try-refused"></div>').text(describeXhr(xhr)).appendTo(output);
            }).always(function () {
                run.prop("disabled", false).text(t("try.run"));
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
                $('<span class="flowmcp-required"></span>').text(" *").attr("title", t("try.required")).appendTo(label);
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
                input = $('<textarea rows="3" spellcheck="false"></textarea>').attr("placeholder", t("try.jsonValue"));
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
                    problems.push(t("try.formProblem", { field: field.name }));
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
        badge("flowmcp-try-status", "data-status", outcome.status, t("try.status." + outcome.status)).appendTo(head);
        $('<span class="flowmcp-try-duration"></span>').text(t("try.duration", { ms: formatMs(outcome.durationMs) })).appendTo(head);
        if (outcome.error) {
            $('<div class="flowmcp-error flowmcp-try-protocol-error"></div>').text(outcome.error.message + " (" + outcome.error.code + ")").appendTo(output);
        }
        if (outcome.problems && outcome.problems.length > 0) {
            $("<div></div>").text(t("try.problems")).appendTo(output);
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
        $('<div class="flowmcp-section-title"></div>').text(t("try.content")).appendTo(contentBox);
        var items = result.content || [];
        if (items.length === 0) {
            $("<div></div>").text(t("try.noContent")).appendTo(contentBox);
        }
        items.forEach(function (item) {
            if (item.type === "text") {
                $('<pre class="flowmcp-try-text"></pre>').text(item.text).appendTo(contentBox);
            } else if (item.type === "image" && /^image\/(png|jpeg|gif|webp)$/.test(item.mimeType || "")) {
                // Only raster types: an SVG could carry script into the editor's page.
                $('<img class="flowmcp-try-image" alt="">').attr("src", "data:" + item.mimeType + ";base64," + item.data).appendTo(contentBox);
            } else if (item.type === "resource_link") {
                $('<div class="flowmcp-try-link"></div>').text(t("try.resourceLink", { uri: item.uri })).appendTo(contentBox);
            } else {
                $('<pre class="flowmcp-try-other"></pre>').text(JSON.stringify(item, null, 2)).appendTo(contentBox);
            }
        });
        if (result.structuredContent !== undefined) {
            var structured = $('<div class="flowmcp-try-structured"></div>').appendTo(output);
            $('<div class="flowmcp-section-title"></div>').text(t("try.structured")).appendTo(structured);
            $("<pre></pre>").text(JSON.stringify(result.structuredContent, null, 2)).appendTo(structured);
        }
    }

    function formatMs(ms) {
        return ms >= 100 ? String(Math.round(ms)) : String(Math.round(ms * 10) / 10);
    }

    // ---- Recent calls ------------------------------------------------------------------------

    /** On a Local endpoint a caller without a client label is a local program; elsewhere it stays unknown. */
    function renderRecent(calls, local) {
        var box = $('<div class="flowmcp-recent"></div>');
        $('<div class="flowmcp-section-title"></div>').text(t("recent.title")).appendTo(box);
        if (calls.length === 0) {
            $('<div class="flowmcp-sidebar-message"></div>').text(t("recent.none")).appendTo(box);
            return box;
        }
        var table = $('<table class="flowmcp-recent-calls"></table>').appendTo(box);
        var head = $("<tr></tr>").appendTo($("<thead></thead>").appendTo(table));
        ["time", "tool", "caller", "status", "duration"].forEach(function (key) {
            $("<th></th>").text(t("recent." + key)).appendTo(head);
        });
        var rows = $("<tbody></tbody>").appendTo(table);
        calls.forEach(function (call) {
            var row = $('<tr class="flowmcp-recent-call"></tr>').attr("data-status", call.status).appendTo(rows);
            $("<td></td>").text(new Date(call.at).toLocaleTimeString()).appendTo(row);
            $('<td class="flowmcp-recent-tool"></td>').text(call.tool).appendTo(row);
            $('<td class="flowmcp-recent-caller"></td>').text(call.caller === "unknown" && local ? t("recent.unknownCaller") : call.caller).appendTo(row);
            $('<td class="flowmcp-recent-status"></td>').text(call.status).appendTo(row);
            $("<td></td>").text(t("try.duration", { ms: formatMs(call.durationMs) })).appendTo(row);
        });
        return box;
    }

    // ---- Wiring ------------------------------------------------------------------------------

    $("<style></style>").text([
        ".flowmcp-sidebar { padding: 8px; overflow-y: auto; height: 100%; box-sizing: border-box; }",
        ".flowmcp-endpoint { border: 1px solid var(--red-ui-secondary-border-color, #ddd); border-radius: 4px; padding: 8px; margin-bottom: 10px; }",
        ".flowmcp-endpoint-header { display: flex; align-items: center; gap: 6px; margin-bottom: 6px; }",
        ".flowmcp-endpoint-name { font-weight: bold; flex: 1; }",
        ".flowmcp-state { font-size: 0.85em; padding: 1px 6px; border-radius: 8px; background: #ccc; color: #333; }",
        ".flowmcp-state-serving { background: #5a8; color: #fff; }",
        ".flowmcp-state-starting { background: #eb5; }",
        ".flowmcp-state-failed { background: #c55; color: #fff; }",
        ".flowmcp-facts th { text-align: left; padding-right: 8px; vertical-align: top; white-space: nowrap; font-weight: normal; color: var(--red-ui-secondary-text-color, #777); }",
        ".flowmcp-facts code { word-break: break-all; }",
        ".flowmcp-error { color: var(--red-ui-text-color-error, #c00); }",
        ".flowmcp-section-title { font-weight: bold; margin: 8px 0 4px; }",
        ".flowmcp-command-head { display: flex; justify-content: space-between; align-items: center; }",
        ".flowmcp-command-text { white-space: pre-wrap; word-break: break-all; margin: 2px 0 6px; font-size: 0.9em; }",
        ".flowmcp-note { font-size: 0.9em; color: var(--red-ui-text-color-warning, #a60); margin-bottom: 4px; }",
        ".flowmcp-try summary { cursor: pointer; font-weight: bold; margin-top: 6px; }",
        ".flowmcp-try-row, .flowmcp-try-field { margin: 4px 0; }",
        ".flowmcp-try-field label, .flowmcp-try-row label { display: block; }",
        ".flowmcp-try-field input[type=text], .flowmcp-try-field input[type=number], .flowmcp-try-field select, .flowmcp-try-field textarea, .flowmcp-try-json textarea, .flowmcp-try-tool { width: 100%; box-sizing: border-box; }",
        ".flowmcp-try-modes .selected { font-weight: bold; }",
        ".flowmcp-try-hint, .flowmcp-try-description { font-size: 0.9em; color: var(--red-ui-secondary-text-color, #777); }",
        ".flowmcp-try-head { display: flex; gap: 8px; margin-top: 6px; }",
        ".flowmcp-try-status { font-weight: bold; }",
        ".flowmcp-try-status-success { color: #385; }",
        ".flowmcp-try-status-error, .flowmcp-try-status-invalid_arguments, .flowmcp-try-status-protocol_error { color: var(--red-ui-text-color-error, #c00); }",
        ".flowmcp-try-content pre, .flowmcp-try-structured pre { white-space: pre-wrap; word-break: break-word; max-height: 300px; overflow: auto; }",
        ".flowmcp-try-image { max-width: 100%; }",
        ".flowmcp-recent-calls { width: 100%; font-size: 0.9em; }",
        ".flowmcp-recent-calls th { text-align: left; }"
    ].join("\n")).appendTo("head");

    RED.sidebar.addTab({
        id: "flowmcp-sidebar",
        label: t("label"),
        name: t("name"),
        iconClass: "fa fa-plug",
        content: content,
        toolbar: toolbar,
        enableOnEdit: true,
        action: "flowmcp:show-mcp-tab",
        onchange: function () {
            refresh(true);
        }
    });
    RED.actions.add("flowmcp:show-mcp-tab", function () { RED.sidebar.show("flowmcp-sidebar"); });
    // Endpoints start after a deploy and report through their node status: both refresh the list.
    function onDeploy() {
        refreshSoon(true);
    }
    function onStatus(topic) {
        var node = RED.nodes.node(topic.slice("status/".length));
        if (node && node.type === FLOW_SERVER) {
            refreshSoon();
        }
    }
    RED.events.on("deploy", onDeploy);
    RED.comms.subscribe("status/#", onStatus);
    // Calls from clients leave no trace in the editor otherwise: the open tab looks every few seconds.
    var poll = setInterval(function () { refreshSoon(false); }, POLL_MS);

    // The tab belongs to the palette: disabling or removing it in the Palette Manager removes the tab
    // (enabling it again loads this file anew).
    function onTypeRemoved(type) {
        if (type !== FLOW_SERVER) {
            return;
        }
        clearInterval(poll);
        clearTimeout(pending);
        RED.events.off("deploy", onDeploy);
        RED.events.off("registry:node-type-removed", onTypeRemoved);
        RED.comms.unsubscribe("status/#", onStatus);
        RED.actions.remove("flowmcp:show-mcp-tab");
        RED.sidebar.removeTab("flowmcp-sidebar");
        delete window.flowmcpSidebar;
    }
    RED.events.on("registry:node-type-removed", onTypeRemoved);

    window.flowmcpSidebar = { refresh: refresh };
})();
