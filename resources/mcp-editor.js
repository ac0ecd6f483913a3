/*
 * Rules the palette's editor templates share, written once for the browser. They mirror the
 * runtime's own checks in lib/ (endpoint paths, loopback hosts, endpoint URLs, the OAuth Base URL
 * rule, secret environment variable names), so what the editor accepts is what the runtime accepts.
 * Each template loads this file; loading it again changes nothing. The palette's other editor files
 * (mcp-editor-*.js) add their parts to the same window.flowmcpEditor; Node-RED loads them in no set
 * order, so none uses another's part while it loads.
 */
(function () {
    "use strict";
    var editor = window.flowmcpEditor = window.flowmcpEditor || {};
    if (editor.endpointPathProblem) {
        return;
    }

    var ENDPOINT_PATH = /^\/[A-Za-z0-9\-._~\/]*$/;
    var RESERVED_PREFIXES = ["/.well-known", "/oauth"];
    var SECRET_ENV_NAME = /^MCP_[A-Z0-9_]{1,64}$/;

    Object.assign(editor, {
        /**
         * Why `path` is not an endpoint path (lib/mcp/endpoint-path.ts): "invalid", "doubleSlash",
         * "tooLong", "dotSegment" or "reserved"; null when it is one.
         */
        endpointPathProblem: function (path) {
            var s = String(path);
            if (!ENDPOINT_PATH.test(s)) {
                return "invalid";
            }
            if (s.indexOf("//") !== -1) {
                return "doubleSlash";
            }
            if (s.length > 256) {
                return "tooLong";
            }
            var segments = s.split("/");
            if (segments.indexOf(".") !== -1 || segments.indexOf("..") !== -1) {
                return "dotSegment";
            }
            var reserved = RESERVED_PREFIXES.some(function (prefix) {
                return s === prefix || s.indexOf(prefix + "/") === 0;
            });
            return reserved ? "reserved" : null;
        },

        /** Hosts only this machine can reach, in any spelling (lib/access/loopback.ts). */
        isLoopback: function (host) {
            var h = String(host || "").trim().toLowerCase().replace(/^\[|\]$/g, "");
            return h === "localhost" || /\.localhost$/.test(h) || h === "::1" || h === "0:0:0:0:0:0:0:1" ||
                /^127(\.\d{1,3}){3}$/.test(h) || /^(?:0:0:0:0:0|:):ffff:127(\.\d{1,3}){3}$/.test(h);
        },

        /**
         * Where a runtime's endpoints are reached: its Base URL, else http://<bind address>:<port>.
         * On Node-RED's own server (server "node-red"): the Base URL, else the address this editor
         * was loaded from, followed by httpNodeRoot.
         */
        listenerUrl: function (host, port, baseUrl, server) {
            var base = String(baseUrl || "").trim();
            if (server === "node-red") {
                var root = RED.settings && typeof RED.settings.httpNodeRoot === "string" ? RED.settings.httpNodeRoot : "/";
                return (base || window.location.origin).replace(/\/+$/, "") + root.replace(/\/+$/, "");
            }
            if (base) {
                return base.replace(/\/+$/, "");
            }
            var h = String(host || "").trim();
            if (h.indexOf(":") !== -1 && h.charAt(0) !== "[") {
                h = "[" + h + "]";
            }
            return "http://" + h + ":" + String(port || "").trim();
        },

        /**
         * What an OAuth endpoint refuses to start with: no Base URL ({ problem: "needsBaseUrl" }) or
         * one with a path ({ problem: "baseUrlPath", origin }); null when the Base URL will do. An
         * unparsable Base URL is the runtime field's own validation error, so null here too.
         */
        oauthBaseUrlProblem: function (baseUrl) {
            var base = String(baseUrl || "").trim();
            if (base === "") {
                return { problem: "needsBaseUrl" };
            }
            try {
                var url = new URL(base);
                if (url.pathname !== "/" && url.pathname !== "") {
                    return { problem: "baseUrlPath", origin: url.origin };
                }
            } catch (err) {
                // See above.
            }
            return null;
        },

        /** Secret environment variable names: MCP_ and capitals (lib/config/env-secrets.ts). */
        isSecretEnvName: function (name) {
            return SECRET_ENV_NAME.test(String(name));
        },

        /**
         * The path of the one MCP endpoint in this editor, or null when there is none or there are
         * several: a new tool, resource or prompt binds to it, as a user with one endpoint expects.
         * Flow servers sharing a path count once; disabled ones are skipped like the runtime does.
         */
        soleEndpointPath: function () {
            var paths = [];
            RED.nodes.eachNode(function (n) {
                if (n.type === "mcp-flow-server" && !n.d && typeof n.path === "string" && n.path !== "" &&
                    paths.indexOf(n.path) === -1) {
                    paths.push(n.path);
                }
            });
            return paths.length === 1 ? paths[0] : null;
        },

        /**
         * Keeps every field label of the dialog holding `field` on one line, in any language: the label
         * column becomes as wide as its widest label (at least Node-RED's 100px), and the fields that
         * filled 70% of a row fill what the wider column leaves. Labels with a width of their own
         * (checkbox captions, headings) are left alone.
         */
        fitLabels: function (field) {
            var form = $(field).closest("form");
            // Node-RED fills the data-i18n texts after oneditprepare; the labels are measured with
            // theirs, so they are filled here first (the same texts, filled twice).
            if (typeof form.i18n === "function") {
                form.i18n();
            }
            var labels = form.find(".form-row > label:first-child").filter(function () {
                return !this.style.width && $(this).text().trim() !== "";
            });
            var widest = 0;
            labels.each(function () {
                // Measured off-screen, so labels of hidden sections and tabs count too.
                var probe = $("<span></span>").css({
                    position: "absolute", visibility: "hidden", whiteSpace: "nowrap",
                    font: window.getComputedStyle(this).font
                }).html($(this).html()).appendTo(document.body);
                widest = Math.max(widest, Math.ceil(probe[0].getBoundingClientRect().width) + 6);
                probe.remove();
            });
            if (widest <= 100) {
                return;
            }
            labels.css({ width: widest + "px", whiteSpace: "nowrap" });
            labels.each(function () {
                $(this).siblings().each(function () {
                    var fill = this.style.width === "70%" ||
                        (!this.style.width && $(this).is("input[type=text], input[type=password], input:not([type]), select, textarea"));
                    if (fill) {
                        $(this).css("width", "calc(100% - " + (widest + 10) + "px)");
                    }
                });
            });
        },

        /** A refused variable name, echoed only when it looks like one: a pasted secret is never shown. */
        shownEnvName: function (name, notAName) {
            return /^[A-Z][A-Z0-9_]{0,79}$/.test(name) ? name : notAName;
        }
    });
})();
