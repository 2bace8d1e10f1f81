import { token } from "../api.js";
import { h, replace } from "../dom.js";

/** Asks for a token, keeps it for this tab only, and checks it with the broker. */
export function renderSignIn(main, { signedIn }) {
  const input = h("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    required: true,
    "aria-describedby": "token-help",
  });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    {
      class: "card narrow",
      onSubmit: async (event) => {
        event.preventDefault();
        token.set(input.value.trim());
        const me = await signedIn().catch((err) => {
          error.textContent = err.message;
          return undefined;
        });
        if (me) location.hash = "#/tools";
        else {
          token.clear();
          error.textContent ||= "The broker did not accept this token.";
        }
      },
    },
    h("label", { for: "token" }, "Token"),
    input,
    h(
      "p",
      { id: "token-help", class: "hint" },
      "A token from the broker's config (auth.tokens) or your identity provider. It stays in this browser tab only and goes to the broker as a bearer.",
    ),
    error,
    h("button", { type: "submit" }, "Sign in"),
  );
  replace(main, h("h1", {}, "Sign in"), form);
  input.focus();
  return () => {};
}
