// The fields of a preset's game options (lobby's create form, the host's options dialog): one
// input per option, typed by the preset's default value, and reading them back.

import { h } from "./common.js";
import { t } from "./i18n.js";
import { optionDescription } from "./settings.js";

/** Options that take one of a few words: a menu instead of free text. */
export const CHOICES = { bomb: ["kicker", "quad"], red_five_gap: ["closed", "open"] };

/**
 * The numbers of packs a preset may be played with by `players` (null: any the option takes).
 * Winner is for 3 or 4 players with one pack and for 4 to 8 with two.
 */
export function packsFor(game, players) {
  if (game !== "zheng-shangyou/winner") return null;
  const n = Number(players);
  return n <= 3 ? [1] : n === 4 ? [1, 2] : [2];
}

/** A refusal of the engine in the form's words ("packs", not "decks=2"). */
export function formWords(message) {
  const m = /with decks=(\d+) is played by ([\d, ]+) players, not (\d+)/.exec(String(message));
  if (m) return t("lobby.errPacks", { n: Number(m[1]), allowed: m[2], p: m[3] });
  return String(message).replace(/\bdecks=(\d+)/g, (x, n) => t("lobby.nPacks", { n: Number(n) }));
}

/** One labelled input for option `name`; `value` is shown, `def` (the preset's default) gives
 * the input's type. */
export function optionField(name, value, def = value, idPrefix = "opt") {
  const id = `${idPrefix}-${name}`;
  const label = optionDescription(name) || name.replace(/_/g, " ");
  const kind = typeof def === "boolean" ? "bool" : typeof def === "number" ? "int"
    : Array.isArray(def) ? "list" : def === null || def === undefined ? "any" : "str";
  if (kind === "bool") {
    return h("label", { class: "field check" },
      h("input", { type: "checkbox", id, dataset: { option: name, type: "bool" },
                   checked: value ? true : undefined }),
      h("span", {}, label));
  }
  let input;
  if (CHOICES[name]) {
    input = h("select", { id, dataset: { option: name, type: "str" } },
      ...CHOICES[name].map((c) => h("option", { value: c, selected: c === value ? true : undefined },
        t(`opt.${name}.${c}`))));
  } else if (kind === "int") {
    input = h("input", { type: "number", id, step: "1", inputmode: "numeric",
                         value: String(value ?? ""), dataset: { option: name, type: "int" } });
  } else if (kind === "list") {
    input = h("input", { type: "text", id, value: Array.isArray(value) ? value.join(", ") : String(value ?? ""),
                         placeholder: t("lobby.noneValue"), dataset: { option: name, type: "list" } });
  } else if (kind === "any") {
    input = h("input", { type: "text", id, value: value === null || value === undefined ? "" : String(value),
                         placeholder: t("lobby.auto"), dataset: { option: name, type: "any" } });
  } else {
    input = h("input", { type: "text", id, value: String(value ?? ""),
                         dataset: { option: name, type: "str" } });
  }
  return h("label", { class: "field" }, h("span", {}, label), input);
}

/** The fields of every option in `defaults` but `players`, showing `values` where given. */
export function optionFields(defaults, values = {}, idPrefix = "opt") {
  return Object.entries(defaults || {}).filter(([name]) => name !== "players")
    .map(([name, def]) => optionField(name, name in values ? values[name] : def, def, idPrefix));
}

/** The value of every field in `box` ({name: value}); an empty field is its default (left out,
 * or null for a field whose default is "auto"). Throws with a readable message. */
export function readOptionValues(box) {
  const out = {};
  for (const input of box.querySelectorAll("[data-option]")) {
    const name = input.dataset.option;
    const type = input.dataset.type;
    let v;
    if (type === "bool") v = input.checked;
    else {
      const raw = input.value.trim();
      if (raw === "") {
        if (type === "list") v = [];
        else if (type === "any") v = null;
        else continue;                     // empty: the preset's default
      } else if (type === "int") {
        const n = Number(raw);
        if (!Number.isInteger(n)) throw new Error(t("lobby.wholeNumber", { name }));
        v = n;
      } else if (type === "list") {
        v = raw.split(/[,\s]+/).filter(Boolean);
      } else if (type === "any") {
        if (/^-?\d+$/.test(raw)) v = Number(raw);
        else if (/^(true|false)$/i.test(raw)) v = raw.toLowerCase() === "true";
        else v = raw;
      } else v = raw;
    }
    out[name] = v;
  }
  return out;
}

export function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The room fields (turn timer, grace, listed) with their values. */
export function roomFields(room = {}, idPrefix = "room") {
  return [
    h("label", { class: "field" }, h("span", {}, t("lobby.timer")),
      h("input", { type: "number", id: `${idPrefix}-timer`, min: "0", max: "600", step: "1",
                   inputmode: "numeric", value: String(room.turn_timer ?? 0) })),
    h("label", { class: "field" }, h("span", {}, t("lobby.grace")),
      h("input", { type: "number", id: `${idPrefix}-grace`, min: "0", max: "3600", step: "1",
                   inputmode: "numeric", value: String(room.grace ?? 60) })),
    h("label", { class: "field" }, h("span", {}, t("lobby.listed")),
      h("select", { id: `${idPrefix}-listed` },
        h("option", { value: "1", selected: room.listed === false ? undefined : true }, t("lobby.listedYes")),
        h("option", { value: "0", selected: room.listed === false ? true : undefined }, t("lobby.listedNo")))),
  ];
}

/** The room options of those fields: {turn_timer, grace, listed}. Throws with a message. */
export function readRoom(root, idPrefix = "room") {
  const timerIn = root.querySelector(`#${idPrefix}-timer`);
  const graceIn = root.querySelector(`#${idPrefix}-grace`);
  const timer = Number(timerIn.value || 0);
  if (!Number.isInteger(timer) || timer < 0) throw new Error(t("lobby.wholeNumber", { name: t("lobby.timer") }));
  const room = { turn_timer: timer };
  if (graceIn.value !== "") {
    const grace = Number(graceIn.value);
    if (!Number.isInteger(grace) || grace < 0) throw new Error(t("lobby.wholeNumber", { name: t("lobby.grace") }));
    room.grace = grace;
  }
  room.listed = root.querySelector(`#${idPrefix}-listed`).value !== "0";
  return room;
}
