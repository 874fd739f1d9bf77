// Swagger UI plugins for the API docs page, named in config/settings.py's
// SWAGGER_UI_SETTINGS; a file, since the Content-Security-Policy allows no inline script.
"use strict";

window.fairdealApiDocsPlugins = [
  // A request body's text box, which Swagger UI draws without a label (axe's label):
  // its own TextArea component, wrapped by Swagger UI's plugin API (wrapComponents).
  () => ({
    wrapComponents: {
      TextArea: (Original, system) => (props) =>
        system.React.createElement(Original, {
          ...(String(props.className || "").includes("body-param__text")
            ? { "aria-label": "Request body" }
            : {}),
          ...props,
        }),
      // The cross of a dialog's close button, its only content: hidden from assistive
      // technology by Swagger UI, which left the button without a name (axe's button-name).
      CloseIcon: (Original, system) => (props) =>
        system.React.createElement(Original, {
          "aria-hidden": undefined,
          role: "img",
          "aria-label": "Close",
          ...props,
        }),
    },
  }),
];
