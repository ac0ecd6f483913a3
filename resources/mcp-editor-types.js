/*
 * What every node type of the palette does the same way in the editor, written once: how it is
 * registered, how it speaks its catalog, and the checks its fields share. Loaded by each template;
 * loading it again changes nothing.
 */
(function () {
    "use strict";
    var editor = window.flowmcpEditor = window.flowmcpEditor || {};
    if (editor.register) {
        return;
    }

    /**
     * `t(key, options)`: the text of `key` in the catalog of `type` (locales/<lang>/<type>.json,
     * under "<type>."). It works wherever Node-RED calls a validator or a label, with or without a
     * node as `this`.
     */
    editor.catalog = function (type) {
        return function (key, options) {
            return RED.nodes.getType(type)._(type + "." + key, options);
        };
    };

    /**
     * Registers `type` with Node-RED, with what every node of the palette shares: its palette label
     * from its catalog, its label in italics when the user named the node, its template's shared rows
     * written out, and its dialog's labels fitted to the widest one when the dialog opens.
     */
    editor.register = function (type, def) {
        var prefix = def.category === "config" ? "node-config-input" : "node-input";
        var prepare = def.oneditprepare;
        def.paletteLabel = def.paletteLabel || function () {
            return this._(type + ".paletteLabel");
        };
        def.labelStyle = def.labelStyle || function () {
            return this.name ? "node_label_italic" : "";
        };
        def.oneditprepare = function () {
            editor.fitLabels("#" + prefix + "-name");
            if (prepare) {
                prepare.apply(this, arguments);
            }
        };
        editor.expandTemplate(type, prefix);
        RED.nodes.registerType(type, def);
    };
})();
