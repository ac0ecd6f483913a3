/*
 * What every node type of the palette does the same way in the editor, written once: how it is
 * registered, how it speaks its catalog, the checks its fields share, how a dialog reads its config
 * node pickers (runtime, storage, sign-in), and the endpoint picker of the nodes bound to an MCP
 * endpoint (tools, resources, prompts). Loaded by each template; loading it again changes nothing.
 */
(function () {
    "use strict";
    var editor = window.flowmcpEditor = window.flowmcpEditor || {};
    if (editor.register) {
        return;
    }

    var WHOLE_NUMBER = /^\d+$/;
    var SECONDS = /^\d+(\.\d+)?$/;
    // RFC 6749 section 3.3 scope-token: printable ASCII but space, double quote and backslash.
    var SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
    var MAX_SCOPE_LENGTH = 128;
    var MAX_REQUIRED_SCOPES = 16;

    function text(v) {
        return v === undefined || v === null ? "" : String(v);
    }

    /**
     * `t(key, options)`: the text of `key` in the catalog of `type` (locales/<lang>/<type>.json,
     * under "<type>."). It works wherever Node-RED calls a validator or a label, with or without a
     * node as `this`.
     */
    function catalog(type) {
        return function (key, options) {
            return RED.nodes.getType(type)._(type + "." + key, options);
        };
    }

    /**
     * Validators for Node-RED's `defaults`, answering with a text of the type's catalog. Each mirrors
     * the runtime's reading of the field (lib/config), so what the editor accepts starts. Each takes
     * (value, options): Node-RED shows the returned text only from a validator with two parameters
     * and takes any text from a one-parameter validator as "valid".
     */
    function checks(t) {
        var check = {
            /** A whole number from min to max, as typed (surrounding spaces allowed) or as a number. */
            wholeNumber: function (min, max, key) {
                return function (v, opt) {
                    return editor.isWholeNumber(v, min, max) ? true : t(key);
                };
            },
            /** Seconds from min to max, fractions allowed. */
            seconds: function (min, max, key) {
                return function (v, opt) {
                    var s = text(v).trim();
                    return SECONDS.test(s) && Number(s) >= min && Number(s) <= max ? true : t(key);
                };
            },
            /** A value the runtime's pattern accepts as typed (names of servers and tools). */
            matches: function (pattern, key) {
                return function (v, opt) {
                    return pattern.test(text(v)) ? true : t(key);
                };
            },
            /** A name that is not blank once trimmed, of at most `max` characters (resource and view names). */
            nameUpTo: function (max, key) {
                return function (v, opt) {
                    var s = text(v).trim();
                    return s !== "" && s.length <= max ? true : t(key);
                };
            },
            /** One of `values`, exactly. */
            oneOf: function (values, key) {
                return function (v, opt) {
                    return values.indexOf(v) !== -1 ? true : t(key);
                };
            },
            /**
             * Blank means the runtime's default: a field added after flows were saved without it, or
             * emptied by the user. Blank is what the runtime reads as missing: "", null or nothing.
             */
            optional: function (validate) {
                return function (v, opt) {
                    return v === undefined || v === null || v === "" ? true : validate.call(this, v, opt);
                };
            },
            /** The name of an MCP_* environment variable holding a secret, or blank. */
            envName: function () {
                return function (v, opt) {
                    var s = text(v).trim();
                    return s === "" || editor.isSecretEnvName(s)
                        ? true
                        : t("errors.invalidEnvName", { name: editor.shownEnvName(s, t("validation.notAName")) });
                };
            },
            /** The endpoint a tool, resource or prompt is bound to: an endpoint path, or "*" (Shared). */
            endpoint: function () {
                return function (v, opt) {
                    var s = text(v);
                    if (s === "") {
                        return t("errors.noEndpoint");
                    }
                    return s === "*" || editor.endpointPathProblem(s) === null ? true : t("errors.invalidEndpoint");
                };
            },
            /**
             * A declaration's Allowed groups (lib/access/allowed-groups.ts): each at most 256 characters,
             * and none on an item a Local endpoint would serve (that endpoint would not start).
             */
            allowedGroups: function () {
                return function (v, opt) {
                    var groups = editor.listEntries(v);
                    if (groups.some(function (g) { return g.length > 256; })) {
                        return t("errors.invalidAllowedGroups");
                    }
                    return groups.length > 0 && editor.servedLocally(text(editor.editedValue(this, "endpoint")).trim()) ? t("errors.allowedGroupsNeedOauth") : true;
                };
            },
            /**
             * A declaration's Required scopes (lib/access/required-scopes.ts): at most 16 distinct
             * RFC 6749 scope tokens, and none on an item a Local endpoint would serve, which issues no
             * scopes (that endpoint would not start). Whether the endpoint's sign-in issues each scope
             * is judged at deploy: the editor does not know which mcp-auth every endpoint will use.
             */
            requiredScopes: function () {
                return function (v, opt) {
                    var scopes = editor.listEntries(v).filter(function (scope, i, all) {
                        return all.indexOf(scope) === i;
                    });
                    if (scopes.length > MAX_REQUIRED_SCOPES || !scopes.every(editor.isScopeToken)) {
                        return t("errors.invalidRequiredScopes");
                    }
                    return scopes.length > 0 && editor.servedLocally(text(editor.editedValue(this, "endpoint")).trim()) ? t("errors.requiredScopesNeedOauth") : true;
                };
            }
        };
        return check;
    }

    /** Whether a node may lack `spec`'s field: it has no check, or its check passes a missing value. */
    function acceptsMissing(node, spec) {
        if (typeof spec.validate !== "function") {
            return true;
        }
        try {
            return spec.validate.call(node, undefined, {}) === true;
        } catch (err) {
            return false;
        }
    }

    Object.assign(editor, {
        /** The text of a field's value: "" for none. */
        text: text,

        /** Whole numbers from min to max, as typed (surrounding spaces allowed) or as numbers. */
        isWholeNumber: function (v, min, max) {
            var s = text(v).trim();
            return WHOLE_NUMBER.test(s) && Number(s) >= min && Number(s) <= max;
        },

        /** Entries of a list typed with commas or whitespace between them, as the runtime splits it. */
        listEntries: function (v) {
            return text(v).split(/[\s,]+/).filter(function (entry) {
                return entry.length > 0;
            });
        },

        /** A scope as OAuth writes it (RFC 6749 scope-token), at most 128 characters, as the runtime takes it. */
        isScopeToken: function (scope) {
            return scope.length <= MAX_SCOPE_LENGTH && SCOPE_TOKEN.test(scope);
        },

        /**
         * Registers `type` with Node-RED. `define(t, check)` returns its definition, given its catalog
         * (`t`) and the shared validators (`check`); every node of the palette then shares its palette
         * category and colour (config nodes name their own category), its `name` property, its palette
         * label from its catalog, its label in italics when the user named the node, its template's
         * shared rows written out, and its dialog's labels fitted to the widest one when it opens.
         */
        register: function (type, define) {
            var t = catalog(type);
            var def = define(t, checks(t));
            // The palette's own category and colour; config nodes say "config".
            if (!def.category) {
                def.category = "MCP";
                def.color = def.color || "#C7E9C0";
            }
            // Every node can be named; `name` stays the first property, as flows have always saved it.
            def.defaults = Object.assign({ name: { value: "" } }, def.defaults);
            var prefix = def.category === "config" ? "node-config-input" : "node-input";
            var prepare = def.oneditprepare;
            def.paletteLabel = def.paletteLabel || function () {
                return this._(type + ".paletteLabel");
            };
            def.labelStyle = def.labelStyle || function () {
                return this.name ? "node_label_italic" : "";
            };
            def.oneditprepare = function () {
                editor.showDefaultsOfMissingFields(this, def, prefix);
                editor.fitLabels("#" + prefix + "-name");
                if (prepare) {
                    prepare.apply(this, arguments);
                }
            };
            editor.expandTemplate(type, prefix);
            RED.nodes.registerType(type, def);
        },

        /**
         * Upgrade-safe dialogs: a node saved before a field existed has no value for it, and Node-RED
         * would show a blank field (a select with nothing chosen, an empty box, an unticked box) where
         * the runtime reads the field's default. Before the dialog builds its own controls, each such
         * field's input shows its default; the node itself is left as saved, so Cancel and undo keep
         * it so, and Done saves the default as any edit. A required field, or one whose check refuses
         * a missing value (the sign-in provider, which the runtime never guesses), stays blank for
         * the user to choose; config node pickers are left to Node-RED.
         */
        showDefaultsOfMissingFields: function (node, def, prefix) {
            Object.keys(def.defaults || {}).forEach(function (field) {
                var spec = def.defaults[field];
                var input = $("#" + prefix + "-" + field);
                if (node[field] !== undefined || !input.length || spec.type || spec.required ||
                    spec.value === undefined || spec.value === "" || typeof spec.value === "object" ||
                    !acceptsMissing(node, spec)) {
                    return;
                }
                if (input.attr("type") === "checkbox") {
                    input.prop("checked", spec.value === true);
                } else {
                    input.val(String(spec.value));
                }
            });
        },

        /**
         * Registers a tool, resource or prompt: what `register` does, and what the three share. They
         * have no wires; each is bound to an endpoint (when dropped, to the only one there is) and
         * waits `timeout` seconds for its flow; its dialog opens with the endpoint picker filled.
         */
        registerDeclaration: function (type, define) {
            editor.register(type, function (t, check) {
                var def = define(t, check);
                var prepare = def.oneditprepare;
                def.defaults.endpoint = { value: "", validate: check.endpoint() };
                def.defaults.timeout = { value: 60, validate: check.seconds(1, 86400, "errors.invalidTimeout") };
                // Flows saved before it existed restrict nothing: the endpoint's groups decide alone.
                def.defaults.allowedGroups = { value: "", validate: check.allowedGroups() };
                // Flows saved before it existed need no scope: signing in is enough.
                def.defaults.requiredScopes = { value: "", validate: check.requiredScopes() };
                def.inputs = 0;
                def.outputs = 0;
                def.onadd = editor.bindToSoleEndpoint;
                def.oneditprepare = function () {
                    editor.endpointPicker(this);
                    if (prepare) {
                        prepare.apply(this, arguments);
                    }
                };
                return def;
            });
        },

        /**
         * A field's value as the user sees it: while `node`'s dialog is open, what its input holds (the
         * node keeps its saved values until the dialog is saved); else what the node saved.
         */
        editedValue: function (node, field) {
            if (!node) {
                return undefined;
            }
            var stack = RED.editor && typeof RED.editor.getEditStack === "function" ? RED.editor.getEditStack() : [];
            var def = RED.nodes.getType(node.type);
            var input = $("#" + (def && def.category === "config" ? "node-config-input-" : "node-input-") + field);
            return stack.indexOf(node) !== -1 && input.length ? input.val() : node[field];
        },

        /**
         * The config node chosen in `field` of `node` (a runtime, storage or sign-in picker) as the
         * user sees it, or null when none is chosen (or "add new" is).
         */
        configNode: function (node, field) {
            var id = text(editor.editedValue(node, field));
            return id === "" || id === "_ADD_" ? null : RED.nodes.node(id) || null;
        },

        /**
         * Whether a Local endpoint (no sign-in, so no groups) would serve an item bound to `path`
         * ("*": every endpoint), as the runtime judges it when the endpoint starts.
         */
        servedLocally: function (path) {
            var local = false;
            RED.nodes.eachNode(function (n) {
                var access = text(n.access) === "" ? "local" : n.access;
                if (n.type === "mcp-flow-server" && access === "local" && (path === "*" || (text(n.path).trim() || "/mcp") === path)) {
                    local = true;
                }
            });
            return local;
        },

        /** The endpoints (mcp-flow-server nodes, disabled ones too) that use `config` in `field`. */
        endpointsUsing: function (config, field) {
            var found = [];
            RED.nodes.eachNode(function (n) {
                if (n.type === "mcp-flow-server" && config && n[field] === config.id) {
                    found.push(n);
                }
            });
            return found;
        },

        /** A storage node (mcp-redis) that keeps its records in this process: lost on restart. */
        isMemoryStorage: function (storage) {
            return !!storage && storage.type === "mcp-redis" && (text(storage.mode) === "" || storage.mode === "memory");
        },

        /**
         * Fills the endpoint picker (#node-input-endpoint) of a tool, resource or prompt: Shared, each
         * endpoint path with the names of the servers on it, and a saved path no server has (marked
         * as such). A node saved before it had an endpoint gets the only endpoint there is.
         */
        endpointPicker: function (node) {
            var select = $("#node-input-endpoint").empty();
            var value = text(node.endpoint) || editor.soleEndpointPath() || "";
            var names = {};
            RED.nodes.eachNode(function (n) {
                if (n.type === "mcp-flow-server" && typeof n.path === "string" && n.path !== "") {
                    names[n.path] = names[n.path] || [];
                    var label = n.name || n.serverName || n.id;
                    if (names[n.path].indexOf(label) === -1) {
                        names[n.path].push(label);
                    }
                }
            });
            function option(v, key, params) {
                $("<option></option>").val(v).text(node._(node.type + ".endpoint." + key, params)).appendTo(select);
            }
            option("", "choose");
            option("*", "shared");
            Object.keys(names).sort().forEach(function (path) {
                option(path, "server", { path: path, names: names[path].join(", ") });
            });
            if (value !== "" && value !== "*" && !names.hasOwnProperty(value)) {
                option(value, "missing", { path: value });
            }
            select.val(value);
        },

        /** onadd of a tool, resource or prompt: one dropped or pasted without an endpoint binds to the only one. */
        bindToSoleEndpoint: function () {
            if (text(this.endpoint) === "") {
                this.endpoint = editor.soleEndpointPath() || "";
            }
        }
    });
})();
