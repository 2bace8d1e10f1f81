/**
 * Builds elements: `h("a", { href: "#/x", class: "link" }, "text", child)`.
 * Children are nodes or text, never HTML: whatever a tool answers is shown
 * as text, and so cannot run as script in the page.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "class") element.className = value;
    else if (name === "value") element.value = value;
    else if (name === "checked") element.checked = Boolean(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** A table's head: one column heading per name (false and null are left out). */
export function tableHead(...names) {
  const columns = names.flat().filter((name) => name !== false && name !== null);
  return h(
    "thead",
    {},
    h(
      "tr",
      {},
      columns.map((name) => h("th", { scope: "col" }, name)),
    ),
  );
}

/** Says `message` to screen readers (a polite live region). */
export function announce(message) {
  const announcer = document.getElementById("announcer");
  announcer.textContent = "";
  // A change a moment later is heard even when the text repeats.
  setTimeout(() => (announcer.textContent = message), 50);
}

/** A page the token may not see: its heading, and why, said as an alert. */
export function refusePage(main, title, why) {
  replace(main, h("h1", {}, title), h("p", { role: "alert" }, why));
  return () => {};
}
