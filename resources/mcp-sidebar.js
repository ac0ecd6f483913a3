/*
 * The editor's MCP sidebar tab: every MCP endpoint of this Node-RED with its URL, access, state,
 * counts and last error; copy-ready commands for Claude Code, Codex, VS Code and Cursor; "Try it"
 * (a form generated from a tool's input schema, or raw JSON, run through the real endpoint and flow);
 * who may use each resource and prompt; and the endpoint's recent calls. Its data comes from the admin routes in
 * nodes/mcp-flow-server/sidebar-routes.ts; every text from the mcp-flow-server catalog
 * (mcp-flow-server.sidebar.*). The card's parts live in mcp-sidebar-connect.js, mcp-sidebar-try.js,
 * mcp-sidebar-content.js and mcp-sidebar-recent.js, their shared helpers in mcp-sidebar-kit.js; mcp-flow-server.html loads
 * them before this file. Loading it again changes nothing.
 */
(function () {
    "use strict";
    var kit = window.flowmcpSidebarKit = window.flowmcpSidebarKit || {};
    /** Starts the tab once every part of it has loaded, whichever file loads last. */
    kit.startSidebar = function () {
        if (window.flowmcpSidebar || typeof RED === "undefined" || !RED.sidebar || !kit.t || !kit.renderTryIt || !kit.renderConnect || !kit.renderRecent || !kit.renderContent) {
            return;
        }
        start(kit);
    };
    kit.startSidebar();

    function start(kit) {
        var ROUTE = kit.ROUTE;
        var FLOW_SERVER = "mcp-flow-server";
        var t = kit.t;
        var badge = kit.badge;
        var describeXhr = kit.describeXhr;

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
        // Whether this editor user may run tools (the write permission), as the list route says.
        var mayRun = true;

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
                var allowed = data.mayRun !== false;
                var allowedChanged = allowed !== mayRun;
                mayRun = allowed;
                if (full || allowedChanged || !update(endpoints)) {
                    render(endpoints);
                }
            }, function (xhr) {
                list.empty();
                $('<div class="flowmcp-sidebar-message flowmcp-error"></div>')
                    .text(t("loadFailed", { message: describeXhr(xhr) }))
                    .appendTo(list);
            });
        }

        /**
         * A refresh soon, coalescing bursts (a deploy changes every endpoint's status at once). A deploy
         * made elsewhere (another editor, the admin API, a project pull) arrives only as status changes:
         * the tool-list version each endpoint reports then tells whether Try it must reload its tools.
         */
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
                // A deploy made elsewhere: the counts say whether the resources and prompts changed.
                if (card.find(".flowmcp-counts").text() !== fresh.find(".flowmcp-counts").text()) {
                    card.children(".flowmcp-content").remove();
                    if (hasContent(endpoint)) {
                        kit.renderContent(endpoint).insertAfter(card.children(".flowmcp-try"));
                    }
                }
                if (card.attr("data-tools-version") !== fresh.attr("data-tools-version")) {
                    card.attr("data-tools-version", fresh.attr("data-tools-version"));
                    card.children(".flowmcp-try").replaceWith(kit.renderTryIt(endpoint, keptFor(endpoint.id), mayRun));
                }
            });
            return true;
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

        /**
         * One endpoint's card; without `withTry` only the parts an in-place update replaces. Try it comes
         * before the client commands, which fold away, so it is near the top even in a short pane.
         */
        function renderEndpoint(endpoint, withTry) {
            var card = $('<div class="flowmcp-endpoint"></div>').attr("data-endpoint-id", endpoint.id).attr("data-tools-version", endpoint.toolsVersion || "");
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
            if (withTry) {
                card.append(kit.renderTryIt(endpoint, keptFor(endpoint.id), mayRun));
            }
            if (withTry && hasContent(endpoint)) {
                card.append(kit.renderContent(endpoint));
            }
            if (endpoint.commands) {
                card.append(kit.renderConnect(endpoint.commands));
            }
            card.append(kit.renderRecent(endpoint.recentCalls || [], endpoint.access === "local"));
            return card;
        }

        /** Resources or prompts to list: only a serving endpoint can say who may use them. */
        function hasContent(endpoint) {
            return endpoint.state === "serving" && endpoint.resources + endpoint.prompts > 0;
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
            ".flowmcp-facts code { overflow-wrap: anywhere; }",
            ".flowmcp-error { color: var(--red-ui-text-color-error, #c00); }",
            ".flowmcp-section-title { font-weight: bold; margin: 8px 0 4px; }",
            ".flowmcp-call-status-success { color: #385; }",
            ".flowmcp-call-status-error, .flowmcp-call-status-invalid_arguments, .flowmcp-call-status-protocol_error, .flowmcp-call-status-unknown_tool," +
                " .flowmcp-call-status-timeout, .flowmcp-call-status-forbidden, .flowmcp-call-status-unauthenticated { color: var(--red-ui-text-color-error, #c00); }"
        ].concat(kit.connectStyle, kit.tryStyle, kit.contentStyle, kit.recentStyle).join("\n")).appendTo("head");

        RED.sidebar.addTab({
            id: "flowmcp-sidebar",
            label: t("label"),
            name: t("name"),
            iconClass: "fa fa-plug",
            // Node-RED 4.1: grouped with Info, Help and Debug (placeButtonNearDebug); Node-RED 5 ignores it.
            pinned: true,
            content: content,
            toolbar: toolbar,
            enableOnEdit: true,
            action: "flowmcp:show-mcp-tab",
            onchange: function () {
                refresh(true);
            }
        });
        RED.actions.add("flowmcp:show-mcp-tab", function () { RED.sidebar.show("flowmcp-sidebar"); });
        placeButtonNearDebug();

        /**
         * Node-RED 4.1 orders its tab buttons by the user's saved order (Info, Help, Debug by default),
         * then the rest as they were added, and moves what does not fit into its menu: at the default
         * width the plug would be there, behind Config and Context. Unless the user has placed the tab
         * themselves, its button goes after Debug and stays visible (the last other one gives way).
         * Node-RED 5 has no such row (every tab has a button in its tab bar) and this does nothing there.
         */
        function placeButtonNearDebug() {
            var order = RED.settings.get("editor.sidebar.order");
            var button = $("#red-ui-tab-flowmcp-sidebar-link-button");
            var debug = $("#red-ui-tab-debug-link-button");
            if ((Array.isArray(order) && order.indexOf("flowmcp-sidebar") !== -1) || button.length === 0 || debug.length === 0) {
                return;
            }
            $("#red-ui-tab-flowmcp-sidebar").insertAfter("#red-ui-tab-debug");
            var wasShown = button.is(":visible");
            button.insertAfter(debug);
            if (!wasShown) {
                var others = button.parent().children("a:visible").not(button).not(".red-ui-tab-link-button-menu");
                others.last().hide();
                button.show();
            }
        }
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
            delete window.flowmcpSidebarKit;
        }
        RED.events.on("registry:node-type-removed", onTypeRemoved);

        // Try it asks for a refresh after a run, so the run shows in the recent calls.
        kit.refreshSoon = refreshSoon;
        window.flowmcpSidebar = { refresh: refresh };
    }
})();
