import { h } from "./dom.js";

/**
 * A form for a tool's `args_schema`: one labelled field per property (text,
 * number, a list for `enum`, yes/no for booleans, JSON for the rest), filled
 * with `values` (the tool's `example_args`). The broker validates what is
 * sent against the schema; the form only shapes it.
 */
export function argumentsForm(schema, values = {}) {
  const properties =
    schema?.type === "object" || schema?.properties ? (schema.properties ?? {}) : {};
  const required = new Set(schema?.required ?? []);
  const fields = Object.entries(properties).map(([name, property]) =>
    field(name, property ?? {}, required.has(name), values[name]),
  );
  const element = h(
    "div",
    { class: "fields" },
    fields.length
      ? fields.map((f) => f.element)
      : h("p", { class: "hint" }, "This tool takes no arguments."),
  );
  return {
    element,
    /** The arguments the fields hold; throws naming the field whose JSON does not parse. */
    read() {
      const args = {};
      for (const f of fields) {
        const value = f.read();
        if (value !== undefined) args[f.name] = value;
      }
      return args;
    },
  };
}

function field(name, property, isRequired, initial) {
  const id = `arg-${name}`;
  const type = Array.isArray(property.type)
    ? property.type.find((t) => t !== "null")
    : property.type;
  const hintId = `${id}-hint`;
  const hint = property.description
    ? h("p", { id: hintId, class: "hint" }, property.description)
    : null;
  const label = h(
    "label",
    { for: id },
    name,
    isRequired ? h("span", { class: "required" }, " (required)") : null,
  );
  const common = { id, name, "aria-describedby": hint ? hintId : undefined, required: isRequired };
  let input;
  let read;
  if (Array.isArray(property.enum)) {
    input = h(
      "select",
      common,
      isRequired ? null : h("option", { value: "" }, "(not set)"),
      property.enum.map((option) =>
        h(
          "option",
          { value: JSON.stringify(option), selected: initial === option },
          String(option),
        ),
      ),
    );
    read = () => (input.value === "" ? undefined : JSON.parse(input.value));
  } else if (type === "boolean") {
    input = h(
      "select",
      common,
      h("option", { value: "" }, "(not set)"),
      h("option", { value: "true", selected: initial === true }, "true"),
      h("option", { value: "false", selected: initial === false }, "false"),
    );
    read = () => (input.value === "" ? undefined : input.value === "true");
  } else if (type === "number" || type === "integer") {
    input = h("input", {
      ...common,
      type: "number",
      step: type === "integer" ? "1" : "any",
      value: initial ?? property.default ?? "",
    });
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (type === "string") {
    const long =
      (property.maxLength ?? 0) > 200 || (typeof initial === "string" && initial.length > 60);
    input = h(long ? "textarea" : "input", {
      ...common,
      type: long ? undefined : "text",
      value: initial ?? "",
    });
    read = () => (input.value === "" && !isRequired ? undefined : input.value);
  } else {
    input = h("textarea", {
      ...common,
      class: "json",
      rows: 3,
      spellcheck: "false",
      value: initial === undefined ? "" : JSON.stringify(initial, null, 2),
    });
    read = () => {
      if (input.value.trim() === "") return undefined;
      try {
        return JSON.parse(input.value);
      } catch (err) {
        throw new Error(`${name}: not JSON (${err.message})`, { cause: err });
      }
    };
  }
  return { name, read, element: h("div", { class: "field" }, label, input, hint) };
}
