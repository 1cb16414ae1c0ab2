// The API viewer's initialiser (GET /api/docs), served as a file of our own origin rather than an inline script:
// the page's CSP runs scripts from 'self' only.

/** The CSRF token the gateway last handed out (GET /api/session answers it), sent back as the web app does. */
let csrfToken;

window.SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#api-docs",
  // Deep links would put a link inside each operation's expanding button (axe: nested-interactive, WCAG 4.1.2).
  deepLinking: false,
  // Examples as plain text: the highlighter's colours (numbers, strings) fall short of 4.5:1 on its dark background.
  syntaxHighlight: { activated: false },
  // Swagger UI would otherwise send the document to validator.swagger.io for its badge: nothing leaves the origin.
  validatorUrl: null,
  requestInterceptor: (request) => {
    if (csrfToken && request.method !== "GET") request.headers["X-CSRF-Token"] = csrfToken;
    return request;
  },
  responseInterceptor: (response) => {
    const token = response.headers["x-csrf-token"];
    if (token) csrfToken = token;
    return response;
  },
});
