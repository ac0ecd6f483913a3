/*
 * The form rows every dialog of the palette shows, written once. A template marks a row with data-
 * attributes and names only what is its own (the field, its icon, which catalog texts); the label,
 * the control and their catalog keys are written here, the same way in every dialog, before Node-RED
 * first reads the template. Loaded by each template; loading it again changes nothing.
 *
 *   <div class="form-row" data-field="slug" data-icon="road" data-width="200px" data-placeholder></div>
 *
 * A row (class form-row):
 *   data-field        the property: the label is for <prefix>-<field> (node-input, or node-config-input
 *                     in a config node's dialog), and so is the control written for it
 *   data-label        its label's key under `label.` (default: the field); without data-field, a label
 *                     for what the row holds (no control is written)
 *   data-icon         a Font Awesome icon before the label's text, without the fa- prefix
 *   data-input        the control: text (default), password, textarea, select, checkbox, or json
 *                     (a code editor, see jsonEditor); a row that holds its own control keeps it
 *   data-options      a select's options, each `value` or `value:key` (its text is <field>.<key>;
 *                     `:key` is the option whose value is empty)
 *   data-placeholder  the control's placeholder: its key under `placeholder.` (empty: the label's key)
 *   data-width        the control's width (default: the dialog's; 70% for a textarea or select)
 *   data-rows         a textarea's rows (default 3)
 *   data-height       a code editor's height and data-min-height its least height
 *   data-unit         a key under `label.` shown after the control (seconds, days...)
 * A tip (class form-tips): data-tip, its key under `tip.`, shown before what the tip holds.
 * A collapsible section's header: data-section (its id: <type>-<id>-toggle, -summary, and the
 * section's body <type>-<id>-section), data-title (its key), data-icon.
 */
(function () {
    "use strict";
    var editor = window.flowmcpEditor = window.flowmcpEditor || {};
    if (editor.expandTemplate) {
        return;
    }

    var CHECKBOX_STYLE = "display: inline-block; width: auto; vertical-align: top;";
    // How long a code editor waits after the last key before its text is checked.
    var CHECK_DELAY_MS = 400;
    var SECTION_STYLE = "margin-top: 18px; padding-top: 12px; border-top: 1px solid var(--red-ui-secondary-border-color, #ddd);";

    // The texts of a row sit in its node type's catalog: <type>.<group>.<key>.
    function text(type, group, key) {
        return $("<span></span>").attr("data-i18n", type + "." + group + "." + key);
    }

    function icon(name) {
        return name ? [$("<i></i>").addClass("fa fa-" + name), " "] : [];
    }

    function control(row, id, type) {
        var kind = row.attr("data-input") || "text";
        var width = row.attr("data-width");
        var element;
        if (kind === "textarea") {
            element = $("<textarea></textarea>").attr({ id: id, rows: row.attr("data-rows") || "3" })
                .attr("style", "width: " + (width || "70%") + "; resize: vertical;");
        } else if (kind === "select") {
            element = $("<select></select>").attr({ id: id, style: "width: " + (width || "70%") + ";" });
            (row.attr("data-options") || "").split(" ").filter(Boolean).forEach(function (entry) {
                var parts = entry.split(":");
                element.append(" ", $("<option></option>").attr({
                    value: parts[0],
                    "data-i18n": type + "." + row.attr("data-field") + "." + (parts[1] || parts[0])
                }));
            });
        } else {
            element = $("<input>").attr({ type: kind, id: id });
            if (kind === "password") {
                element.attr("autocomplete", "off");
            }
            if (width) {
                element.attr("style", "width: " + width + ";");
            }
        }
        var placeholder = row.attr("data-placeholder");
        if (placeholder !== undefined) {
            element.attr("data-i18n", "[placeholder]" + type + ".placeholder." + (placeholder || row.attr("data-label") || row.attr("data-field")));
        }
        return element;
    }

    // A checkbox sits in the control column, its caption beside it.
    function checkboxRow(row, id, type) {
        row.append($("<label></label>").html("&nbsp;"), " ",
            $("<input>").attr({ type: "checkbox", id: id, style: CHECKBOX_STYLE }), " ",
            $("<label></label>").attr({ "for": id, style: "width: auto;", "data-i18n": type + ".label." + (row.attr("data-label") || row.attr("data-field")) }));
    }

    // The label and the field's hidden input above, the code editor in a row of its own below.
    function jsonRows(row, id, type) {
        row.attr("style", "margin-bottom: 0px;").append(
            $("<label></label>").attr({ "for": id + "-editor", style: "width: auto;" })
                .append(icon(row.attr("data-icon")), text(type, "label", row.attr("data-label") || row.attr("data-field"))),
            " ",
            $("<input>").attr({ type: "hidden", id: id }));
        row.after(" ", $("<div></div>").addClass("form-row node-text-editor-row").append(
            $("<div></div>").attr({
                style: "height: " + row.attr("data-height") + "; min-height: " + row.attr("data-min-height") + ";",
                "class": "node-text-editor",
                id: id + "-editor"
            })));
    }

    function formRow(row, type, prefix) {
        var field = row.attr("data-field");
        var id = field ? prefix + "-" + field : null;
        if (row.attr("data-input") === "checkbox") {
            checkboxRow(row, id, type);
        } else if (row.attr("data-input") === "json") {
            jsonRows(row, id, type);
        } else {
            var label = $("<label></label>").append(icon(row.attr("data-icon")), text(type, "label", row.attr("data-label") || field));
            if (id) {
                label.attr("for", id);
            }
            var held = row.contents().detach();
            row.append(label, " ");
            if (id && held.filter("*").length === 0) {
                row.append(control(row, id, type));
            } else {
                row.append(held);
            }
            if (row.attr("data-unit")) {
                row.append(" ", text(type, "label", row.attr("data-unit")));
            }
        }
        row.removeAttr("data-field data-label data-icon data-input data-options data-placeholder data-width data-rows data-unit data-height data-min-height");
    }

    function tip(box, type) {
        box.prepend(text(type, "tip", box.attr("data-tip")), " ").removeAttr("data-tip");
    }

    function sectionHeader(row, type) {
        var id = type + "-" + row.attr("data-section");
        row.attr("style", SECTION_STYLE).append(
            $("<a></a>").attr({ href: "#", id: id + "-toggle", style: "font-weight: bold; text-decoration: none;" }).append(
                $("<i></i>").attr({ "class": "fa fa-caret-right", style: "width: 10px;" }), " ",
                icon(row.attr("data-icon")),
                $("<span></span>").attr("data-i18n", type + "." + row.attr("data-title"))),
            " ",
            $("<div></div>").attr({ id: id + "-summary", style: "margin-top: 4px; opacity: 0.7;" }));
        row.removeAttr("data-section data-title data-icon");
    }

    /**
     * Writes the shared rows, tips and section headers into the template of `type`, whose fields are
     * named <prefix>-<field>. Node-RED copies the template into the dialog each time it opens one,
     * so this runs once, when the type is registered.
     */
    editor.expandTemplate = function (type, prefix) {
        $("script[data-template-name='" + type + "']").each(function () {
            var template = $("<div></div>").html($(this).html());
            template.find("[data-section]").each(function () {
                sectionHeader($(this), type);
            });
            template.find(".form-row[data-field], .form-row[data-label]").each(function () {
                formRow($(this), type, prefix);
            });
            template.find("[data-tip]").each(function () {
                tip($(this), type);
            });
            $(this).text(template.html());
        });
    };

    /**
     * The behaviour of a section written by a data-section header: the header's link opens and closes
     * it, its caret says which; the summary under the header shows while the section is closed, or
     * always with `keepSummary`. Returns { show(open) }.
     */
    editor.collapsible = function (type, id, options) {
        var keepSummary = !!(options && options.keepSummary);
        var toggle = $("#" + type + "-" + id + "-toggle");
        var body = $("#" + type + "-" + id + "-section");
        var summary = $("#" + type + "-" + id + "-summary");
        var isOpen = false;
        var section = {
            show: function (open) {
                isOpen = open;
                body.toggle(open);
                summary.toggle(keepSummary || !open);
                toggle.find("i").first().toggleClass("fa-caret-right", !open).toggleClass("fa-caret-down", open);
            }
        };
        toggle.on("click", function (event) {
            event.preventDefault();
            section.show(!isOpen);
        });
        return section;
    };

    /**
     * The code editor of a data-input="json" row: Node-RED's editor holding `value`, `onChange`
     * called once the user pauses typing. save() puts the text in the field's hidden input, which
     * Node-RED then saves; close() ends the editor (on save and on cancel).
     */
    editor.jsonEditor = function (prefix, field, value, onChange) {
        var timer = null;
        var closed = false;
        var code = RED.editor.createEditor({ id: prefix + "-" + field + "-editor", mode: "ace/mode/json", value: value });
        code.getSession().on("change", function () {
            clearTimeout(timer);
            timer = setTimeout(function () {
                if (!closed) {
                    onChange();
                }
            }, CHECK_DELAY_MS);
        });
        return {
            getValue: function () {
                return code.getValue();
            },
            resize: function () {
                code.resize();
            },
            save: function () {
                $("#" + prefix + "-" + field).val(code.getValue());
            },
            close: function () {
                closed = true;
                clearTimeout(timer);
                code.destroy();
            }
        };
    };
})();
