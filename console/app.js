import { api, ApiError, token } from "./api.js";
import { h, replace } from "./dom.js";
import { renderApprovals } from "./pages/approvals.js";
import { renderHealth } from "./pages/health.js";
import { renderRun } from "./pages/run.js";
import { renderSignIn } from "./pages/sign-in.js";
import { renderTools } from "./pages/tools.js";
import { renderTraffic } from "./pages/traffic.js";

/**
 * The console: a page per hash route (`#/tools/<path>`, `#/run`, `#/health`,
 * `#/traffic`, `#/approvals`, `#/sign-in`), each drawn into <main> by its module, which
 * returns what stops its polling or stream when the user leaves it.
 */
const main = document.getElementById("main");
let leave = () => {};
/** Who the token is and what it may see (`GET /console/api/me`), once per sign-in. */
let me;

async function whoAmI() {
  try {
    me = await api.me();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) me = undefined;
    else throw err;
  }
  drawWho();
  return me;
}

function drawWho() {
  const who = document.getElementById("who");
  if (!me) return replace(who, h("a", { href: "#/sign-in" }, "Sign in"));
  if (!me.auth) return replace(who, h("span", {}, "Auth is off: everything is open"));
  replace(
    who,
    h("span", {}, "Signed in as ", h("strong", {}, me.token)),
    " ",
    h("button", { type: "button", onClick: signOut }, "Sign out"),
  );
}

function signOut() {
  token.clear();
  me = undefined;
  drawWho();
  location.hash = "#/sign-in";
}

async function route() {
  leave();
  leave = () => {};
  const hash = decoded(location.hash.slice(1)) || "/tools";
  const [, page = "tools", ...rest] = hash.split("/");
  for (const link of document.querySelectorAll("nav a")) {
    if (link.dataset.page === page) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (page === "sign-in") {
    leave = renderSignIn(main, { signedIn: whoAmI });
    return;
  }
  if (me === undefined && !(await whoAmI())) {
    location.hash = "#/sign-in";
    return;
  }
  const context = { me, signIn: () => (location.hash = "#/sign-in") };
  try {
    if (page === "health") leave = renderHealth(main, context);
    else if (page === "traffic") leave = renderTraffic(main, context);
    else if (page === "run") leave = renderRun(main, context);
    else if (page === "approvals") leave = renderApprovals(main, context);
    else leave = renderTools(main, context, rest.length ? `/${rest.join("/")}` : "/");
  } catch (err) {
    replace(
      main,
      h("h1", {}, "Something went wrong"),
      h("p", { role: "alert" }, String(err.message ?? err)),
    );
  }
  main.focus({ preventScroll: true });
}

/** A URL's hash as text; one with a broken %-escape (typed by hand) is taken as it is. */
function decoded(hash) {
  try {
    return decodeURIComponent(hash);
  } catch {
    return hash;
  }
}

window.addEventListener("hashchange", () => void route());
void route();
