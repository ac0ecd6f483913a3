/*
 * What the MCP sidebar's files share (mcp-sidebar.js, mcp-sidebar-connect.js, mcp-sidebar-try.js,
 * mcp-sidebar-recent.js): the catalog lookup, the admin route, status words and the sections a user
 * opened or closed. Node-RED inserts the template's scripts so that they may run in any order:
 * each file only adds its part to window.flowmcpSidebarKit and then asks mcp-sidebar.js to start,
 * which it does once every part is there. Loading a file again changes nothing.
 */
(function () {
    "use strict";
    var kit = window.flowmcpSidebarKit = window.flowmcpSidebarKit || {};
    if (kit.t || typeof RED === "undefined") {
        return;
    }
    var NS = "@flowmcp/node-red-mcp/mcp-flow-server:mcp-flow-server.sidebar.";
    var LOCAL_KEY = "flowmcp-sidebar-open";

    function t(key, params) {
        return RED._(NS + key, params);
    }

    /** Which sections were opened or closed, in this browser: they stay so across refreshes and reloads. */
    function openSections() {
        try {
            return JSON.parse(RED.settings.getLocal(LOCAL_KEY) || "{}") || {};
        } catch (e) {
            return {};
        }
    }

    $.extend(kit, {
        NS: NS,
        ROUTE: "mcp-sidebar/endpoints",
        t: t,

        /** A state shown in words: its class says the kind and the value (styled by the sidebar), `attribute` the value. */
        badge: function (kind, attribute, value, text) {
            return $("<span></span>").addClass(kind + " " + kind + "-" + value).attr(attribute, value).text(text);
        },

        /**
         * One wording for a call's status wherever the sidebar shows it (Try it, recent calls); a status
         * a newer runtime reports that this catalog does not know yet shows as it is.
         */
        statusText: function (status) {
            var text = t("status." + status);
            return /sidebar\.status\./.test(text) ? status : text;
        },

        formatMs: function (ms) {
            return ms >= 100 ? String(Math.round(ms)) : String(Math.round(ms * 10) / 10);
        },

        describeXhr: function (xhr) {
            var body = xhr && xhr.responseJSON;
            if (body && body.message) {
                return body.message;
            }
            return (xhr && (xhr.status + " " + (xhr.statusText || ""))) || "?";
        },

        /**
         * An item's Required scopes as one phrase ("" for none): what the admin routes send beside
         * Allowed groups, which a runtime older than the field does not send at all.
         */
        scopeList: function (scopes) {
            return Array.isArray(scopes) && scopes.length > 0 ? scopes.join(", ") : "";
        },

        /** A <details> whose open state is remembered under `key` (closed the first time unless `openFirst`). */
        section: function (className, key, title, openFirst) {
            var box = $("<details></details>").addClass(className).attr("data-section", key);
            var remembered = openSections()[key];
            if (remembered === true || (remembered === undefined && openFirst)) {
                box.attr("open", "open");
            }
            $("<summary></summary>").text(title).appendTo(box);
            box.on("toggle", function () {
                var sections = openSections();
                sections[key] = box.prop("open");
                RED.settings.setLocal(LOCAL_KEY, JSON.stringify(sections));
            });
            return box;
        }
    });
    if (kit.startSidebar) {
        kit.startSidebar();
    }
})();
