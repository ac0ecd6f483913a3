/*
 * The MCP sidebar's "Recent calls": the endpoint's last calls, newest first, two short lines each
 * (tool and status; time, caller and duration), so they fit the sidebar's default width in every
 * language with nothing cut off. Status words are the ones Try it shows (sidebar.status.*).
 */
(function () {
    "use strict";
    var kit = window.flowmcpSidebarKit = window.flowmcpSidebarKit || {};
    // kit.t and the other helpers are looked up when called: the kit's own file may run after this one.
    if (kit.renderRecent) {
        return;
    }

    function part(className, titleKey, text) {
        return $("<span></span>").addClass(className).attr("title", kit.t("recent." + titleKey)).text(text);
    }

    /** On a Local endpoint a caller without a client label is a local program; elsewhere it stays unknown. */
    kit.renderRecent = function (calls, local) {
        var box = $('<div class="flowmcp-recent"></div>');
        $('<div class="flowmcp-section-title"></div>').text(kit.t("recent.title")).appendTo(box);
        if (calls.length === 0) {
            $('<div class="flowmcp-sidebar-message"></div>').text(kit.t("recent.none")).appendTo(box);
            return box;
        }
        var list = $('<ol class="flowmcp-recent-calls"></ol>').appendTo(box);
        calls.forEach(function (call) {
            var row = $('<li class="flowmcp-recent-call"></li>').attr("data-status", call.status).appendTo(list);
            var first = $('<div class="flowmcp-recent-line"></div>').appendTo(row);
            part("flowmcp-recent-tool", "tool", call.tool).appendTo(first);
            kit.badge("flowmcp-call-status", "data-status", call.status, kit.statusText(call.status))
                .addClass("flowmcp-recent-status")
                .attr("title", kit.t("recent.status"))
                .appendTo(first);
            var second = $('<div class="flowmcp-recent-line flowmcp-recent-meta"></div>').appendTo(row);
            var at = new Date(call.at);
            part("flowmcp-recent-time", "time", at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }))
                .attr("data-at", at.toISOString())
                .appendTo(second);
            part("flowmcp-recent-caller", "caller", call.caller === "unknown" && local ? kit.t("recent.unknownCaller") : call.caller).appendTo(second);
            part("flowmcp-recent-duration", "duration", kit.t("try.duration", { ms: kit.formatMs(call.durationMs) })).appendTo(second);
        });
        return box;
    };

    kit.recentStyle = [
        ".flowmcp-sidebar ol.flowmcp-recent-calls { list-style: none; margin: 0; padding: 0; font-size: 0.9em; }",
        ".flowmcp-recent-call { padding: 3px 0; border-top: 1px solid var(--red-ui-secondary-border-color, #eee); }",
        ".flowmcp-recent-line { display: flex; align-items: baseline; gap: 6px; min-width: 0; }",
        ".flowmcp-recent-line > span { white-space: nowrap; }",
        ".flowmcp-recent-tool, .flowmcp-recent-caller { flex: 1 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }",
        ".flowmcp-recent-tool { font-weight: bold; }",
        ".flowmcp-recent-meta { color: var(--red-ui-secondary-text-color, #777); }"
    ];
    if (kit.startSidebar) {
        kit.startSidebar();
    }
})();
