/*
 * The MCP sidebar's "Resources and prompts": each resource, resource template and prompt an endpoint
 * serves, with who may use it (its Allowed groups, or every caller the endpoint lets in) and the
 * scopes it needs (its Required scopes, when it has any). A client lists only what it may use; this
 * is where the person wiring the flow sees all of it. Folded at first (the open state is
 * remembered), loaded from the admin route when opened.
 */
(function () {
    "use strict";
    var kit = window.flowmcpSidebarKit = window.flowmcpSidebarKit || {};
    // kit.t and the other helpers are looked up when called: the kit's own file may run after this one.
    if (kit.renderContent) {
        return;
    }

    function renderItem(item) {
        var row = $('<li class="flowmcp-content-item"></li>').attr("data-kind", item.kind).attr("data-name", item.name);
        var line = $('<div class="flowmcp-content-line"></div>').appendTo(row);
        $('<span class="flowmcp-content-kind"></span>').text(kit.t("content.kind." + item.kind)).appendTo(line);
        $('<span class="flowmcp-content-name"></span>').text(item.name).appendTo(line);
        if (item.uri) {
            $('<code class="flowmcp-content-uri"></code>').text(item.uri).appendTo(row);
        }
        // On a hub, an edge site's item: its flow runs on that site, and it is gone while the site is.
        if (item.site) {
            $('<div class="flowmcp-content-site"></div>').text(kit.t("content.fromSite", { site: item.site })).appendTo(row);
        }
        var groups = item.allowedGroups;
        $('<div class="flowmcp-content-access"></div>')
            .toggleClass("flowmcp-content-restricted", Boolean(groups))
            .text(groups ? kit.t("content.allowedGroups", { groups: groups.join(", ") }) : kit.t("content.everyone"))
            .appendTo(row);
        // Scopes do not hide an item; a token without them is sent back to sign in (step-up).
        var scopes = kit.scopeList(item.requiredScopes);
        if (scopes) {
            $('<div class="flowmcp-content-scopes"></div>').text(kit.t("content.requiredScopes", { scopes: scopes })).appendTo(row);
        }
        return row;
    }

    kit.renderContent = function (endpoint) {
        var box = kit.section("flowmcp-content", "content", kit.t("content.title"), false);
        var body = $('<div class="flowmcp-content-body"></div>').appendTo(box);
        function load() {
            box.data("loaded", true);
            body.empty().append($('<div class="flowmcp-sidebar-message"></div>').text(kit.t("loading")));
            $.ajax({ url: kit.ROUTE + "/" + encodeURIComponent(endpoint.id) + "/content", dataType: "json", cache: false }).then(function (data) {
                var list = $('<ul class="flowmcp-content-items"></ul>');
                (data.items || []).forEach(function (item) {
                    list.append(renderItem(item));
                });
                body.empty().append(list);
            }, function (xhr) {
                body.empty().append($('<div class="flowmcp-sidebar-message flowmcp-error"></div>')
                    .text(kit.t("content.loadFailed", { message: kit.describeXhr(xhr) })));
            });
        }
        box.on("toggle", function () {
            if (box.prop("open") && !box.data("loaded")) {
                load();
            }
        });
        if (box.prop("open")) {
            load();
        }
        return box;
    };

    kit.contentStyle = [
        ".flowmcp-content > summary { cursor: pointer; font-weight: bold; margin: 6px 0 2px; }",
        ".flowmcp-sidebar ul.flowmcp-content-items { list-style: none; margin: 0; padding: 0; font-size: 0.9em; }",
        ".flowmcp-content-item { padding: 3px 0; border-top: 1px solid var(--red-ui-secondary-border-color, #eee); }",
        ".flowmcp-content-line { display: flex; align-items: baseline; gap: 6px; min-width: 0; }",
        ".flowmcp-content-kind { color: var(--red-ui-secondary-text-color, #777); white-space: nowrap; }",
        ".flowmcp-content-name { font-weight: bold; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }",
        ".flowmcp-content-uri { display: block; overflow-wrap: anywhere; }",
        ".flowmcp-content-access, .flowmcp-content-scopes, .flowmcp-content-site { color: var(--red-ui-secondary-text-color, #777); }",
        ".flowmcp-content-restricted { color: var(--red-ui-text-color-warning, #a60); }"
    ];
    if (kit.startSidebar) {
        kit.startSidebar();
    }
})();
