import { h } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 90;

function svg(tag, attributes, ...children) {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/**
 * A small line chart of one or more series over the same points, with its
 * largest value written on it; `label` names it for screen readers, which
 * also get the latest values as text.
 */
export function lineChart(label, series, unit) {
  const max = Math.max(1e-9, ...series.flatMap((s) => s.values.filter((v) => v !== null)));
  const count = Math.max(1, ...series.map((s) => s.values.length));
  const x = (i) => (count === 1 ? WIDTH : (i / (count - 1)) * WIDTH);
  const y = (v) => HEIGHT - (v / max) * (HEIGHT - 12);
  const lines = series.map((s) => {
    const points = s.values
      .map((v, i) => (v === null ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`))
      .filter((p) => p !== null)
      .join(" ");
    // A point with no neighbour draws no line: a dot shows it.
    const dots = s.values
      .map((v, i) =>
        v !== null && (s.values[i - 1] ?? null) === null && (s.values[i + 1] ?? null) === null
          ? svg("circle", {
              cx: x(i).toFixed(1),
              cy: y(v).toFixed(1),
              r: 2.5,
              class: `dot ${s.class}`,
            })
          : null,
      )
      .filter((dot) => dot !== null);
    return svg(
      "g",
      {},
      svg("polyline", { points, class: `line ${s.class}`, fill: "none" }),
      ...dots,
    );
  });
  const latest = series
    .map((s) => {
      const last = [...s.values].reverse().find((v) => v !== null);
      return `${s.name} ${last === undefined ? "none" : `${round(last)} ${unit}`}`;
    })
    .join(", ");
  return h(
    "figure",
    { class: "chart" },
    svg(
      "svg",
      {
        viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
        role: "img",
        "aria-label": `${label}: latest ${latest}`,
      },
      svg("text", { x: 2, y: 10, class: "max" }, `${round(max)} ${unit}`),
      ...lines,
    ),
    h(
      "figcaption",
      {},
      label,
      h(
        "span",
        { class: "legend" },
        series.map((s) => h("span", { class: `key ${s.class}` }, s.name)),
      ),
    ),
  );
}

function round(value) {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}
