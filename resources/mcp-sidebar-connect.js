/*
 * The MCP sidebar's "Connect a client" section: the exact command or file for Claude Code, Codex,
 * VS Code and Cursor, each with a copy button. The section and each client's text fold away (closed
 * the first time, then as the user left them), so Try it stays near the top of the card.
 */
(function () {
    "use strict";
    var kit = window.flowmcpSidebarKit = window.flowmcpSidebarKit || {};
    // kit.t and the other helpers are looked up when called: the kit's own file may run after this one.
    if (kit.renderConnect) {
        return;
    }
    var CLIENTS = ["claude", "codex", "vscode", "cursor"];

    /**
     * A command as text that wraps between shell words, and inside a URL only after a `/`: never
     * inside `--transport` or a server name. Copying takes the command itself, not this text.
     */
    function breakableText(target, text) {
        text.split(/(\s+)/).forEach(function (token) {
            if (token === "") {
                return;
            }
            if (/^\s+$/.test(token)) {
                target.append(document.createTextNode(token));
            } else if (token.indexOf("://") !== -1) {
                // Each piece unbreakable, a break opportunity after each "/" (but not inside "//").
                token.split(/(?<=[^/]\/)(?!\/)/).forEach(function (piece, index) {
                    if (index > 0) {
                        target.append("<wbr>");
                    }
                    $('<span class="flowmcp-word"></span>').text(piece).appendTo(target);
                });
            } else {
                $('<span class="flowmcp-word"></span>').text(token).appendTo(target);
            }
        });
        return target;
    }

    kit.renderConnect = function (commands) {
        var part = $('<div class="flowmcp-connect"></div>');
        var box = kit.section("flowmcp-connect-section", "connect", kit.t("connect.title"), false).appendTo(part);
        CLIENTS.forEach(function (client) {
            var row = kit.section("flowmcp-command", "connect." + client, "", client === "claude").attr("data-client", client).appendTo(box);
            var head = row.children("summary").addClass("flowmcp-command-head");
            $("<span></span>").text(kit.t("connect." + client)).appendTo(head);
            // In the summary, so a folded command can be copied without opening it.
            $('<button type="button" class="red-ui-button red-ui-button-small flowmcp-copy"><i class="fa fa-clipboard"></i></button>')
                .attr("title", kit.t("connect.copy"))
                .on("click", function (event) {
                    event.preventDefault();
                    RED.clipboard.copyText(commands[client], $(this), kit.NS + "connect.copied");
                })
                .appendTo(head);
            breakableText($('<pre class="flowmcp-command-text"></pre>'), commands[client]).appendTo(row);
        });
        (commands.notes || []).forEach(function (note) {
            // Outside the fold: a client that cannot sign in as configured is worth seeing at once.
            $('<div class="flowmcp-note"></div>').attr("data-note", note).text(kit.t("notes." + note)).appendTo(part);
        });
        return part;
    };

    kit.connectStyle = [
        ".flowmcp-connect-section > summary, .flowmcp-try > summary { cursor: pointer; font-weight: bold; margin: 6px 0 2px; }",
        ".flowmcp-command { margin-left: 12px; }",
        ".flowmcp-command-head { cursor: pointer; display: flex; align-items: center; gap: 6px; padding: 1px 0; }",
        ".flowmcp-command-head > span { flex: 1; }",
        ".flowmcp-command-text { white-space: pre-wrap; word-break: normal; overflow-wrap: normal; overflow-x: auto; margin: 2px 0 6px; font-size: 0.9em; }",
        ".flowmcp-word { white-space: nowrap; }",
        ".flowmcp-note { font-size: 0.9em; color: var(--red-ui-text-color-warning, #a60); margin-bottom: 4px; }"
    ];
    if (kit.startSidebar) {
        kit.startSidebar();
    }
})();
