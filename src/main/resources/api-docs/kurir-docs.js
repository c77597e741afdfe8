// Kurir's API docs page: Swagger UI on this gateway's own /openapi.json. Everything it loads comes
// from this gateway (the page's Content-Security-Policy refuses anything else): no validator badge,
// no remote configuration, no example document.
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    configUrl: null,
    queryConfigEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    tryItOutEnabled: false,
    displayOperationId: false,
    docExpansion: "none",
  });
};
