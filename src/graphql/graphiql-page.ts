// GraphiQL from our own origin: the page Yoga serves on GET /graphql to a browser is a shell
// that loads GraphiQL's script and styles, its editor's web workers and a small boot script
// as files under /graphiql/ (src/http/routes/graphiql.ts serves them from
// @graphql-yoga/render-graphiql, which bundles GraphiQL). No CDN, no inline script: it works
// offline and sits under GRAPHIQL_CSP. The page holds no data; the person types an API key
// into GraphiQL's headers editor, which is not persisted.
import type { GraphiQLOptions } from 'graphql-yoga';

export const GRAPHIQL_ASSETS = '/graphiql/';

/**
 * Scripts, workers, fonts and API from this origin only. Styles also inline: GraphiQL's editor
 * (Monaco) adds <style> elements at run time; no script can be inlined.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** What GraphiQL starts with: a query any key may run, and where the key goes. */
export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: 'Interactions GraphQL',
  defaultQuery: '{\n  viewer {\n    id\n  }\n}\n',
  headers: '{\n  "Authorization": "Bearer YOUR_API_KEY"\n}',
  // A key typed into the headers editor stays in this tab's memory, never in localStorage.
  shouldPersistHeaders: false,
  defaultEditorToolsVisibility: 'headers',
};

/** The boot script (served as /graphiql/boot.js): the editor's workers by URL, then GraphiQL. */
export const GRAPHIQL_BOOT_JS = `(function () {
  var base = ${JSON.stringify(GRAPHIQL_ASSETS)};
  var workers = {
    editorWorkerService: base + 'editor.worker.js',
    json: base + 'json.worker.js',
    graphql: base + 'graphql.worker.js',
  };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) {
      return workers[label] || workers.editorWorkerService;
    },
  };
  var root = document.getElementById('root');
  YogaGraphiQL.renderYogaGraphiQL(root, JSON.parse(root.getAttribute('data-options') || '{}'));
})();
`;

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Yoga's `renderGraphiQL`: the shell page, with GraphiQL's options in a data attribute. */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const title = escapeAttribute(options.title ?? 'GraphiQL');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <link rel="icon" href="${GRAPHIQL_ASSETS}favicon.ico">
    <link rel="stylesheet" href="${GRAPHIQL_ASSETS}graphiql.css">
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root" data-options="${escapeAttribute(JSON.stringify(options))}"></div>
    <script src="${GRAPHIQL_ASSETS}graphiql.js"></script>
    <script src="${GRAPHIQL_ASSETS}boot.js"></script>
  </body>
</html>
`;
}
