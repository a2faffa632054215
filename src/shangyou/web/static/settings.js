// Display settings kept in localStorage and applied to <html> as classes (every page), the
// settings dialog (language, four-colour suits, dark theme, card size, reduced motion, sound),
// and the rules dialog. Changing the language calls the page's re-render hook.

import { h } from "./common.js";
import { LANGS, has, lang, setLang, t } from "./i18n.js";
import { OPTIONS, RULES } from "./rules.js";

const KEY = "shangyou.settings";
// sound (sound.js: cards, tricks, your turn) is on unless the system asks for reduced motion
const DEFAULTS = { four: false, dark: false, size: "m", motion: false, sound: true };

export function settings() {
  let s = {};
  try { s = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { s = {}; }
  const out = { ...DEFAULTS, ...s };
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    if (!("motion" in s)) out.motion = true;
    if (!("sound" in s)) out.sound = false;
  }
  if (!["s", "m", "l"].includes(out.size)) out.size = "m";
  return out;
}

export function saveSetting(name, value) {
  const s = settings();
  s[name] = value;
  try { localStorage.setItem(KEY, JSON.stringify(s)); } catch { /* private mode */ }
  applySettings();
}

export function applySettings() {
  const s = settings();
  const root = document.documentElement;
  root.classList.toggle("four-colour", !!s.four);
  root.classList.toggle("dark", !!s.dark);
  root.classList.toggle("reduce-motion", !!s.motion);
  for (const z of ["s", "m", "l"]) root.classList.toggle(`size-${z}`, s.size === z);
  root.style.colorScheme = s.dark ? "dark" : "light";
}

function checkbox(id, key, name, onchange) {
  const s = settings();
  return h("label", { class: "field check" },
    h("input", { type: "checkbox", id, checked: s[name] ? true : undefined,
                 onchange: (e) => { saveSetting(name, e.target.checked); if (onchange) onchange(); } }),
    h("span", {}, t(key)));
}

/**
 * A "Settings" button in the header and its dialog. onLang: called after the language changed
 * (the page re-renders its dynamic parts).
 */
export function mountSettings(header, { sound = false, onLang = () => {} } = {}) {
  const dialog = h("dialog", { id: "settings", class: "dialog", "aria-labelledby": "settings-title" });
  const build = () => {
    const s = settings();
    const langSel = h("select", { id: "set-lang" },
      ...Object.entries(LANGS).map(([k, v]) => h("option", { value: k, lang: k === "zh" ? "zh-CN" : "en",
        selected: k === lang() ? true : undefined }, v)));
    langSel.addEventListener("change", () => {
      setLang(langSel.value);
      build();
      const open = document.getElementById("open-settings");
      if (open) open.textContent = t("set.open");
      onLang();
      document.getElementById("set-lang")?.focus();
    });
    const size = h("select", { id: "set-size" },
      ...["s", "m", "l"].map((z) => h("option", { value: z, selected: s.size === z ? true : undefined },
        t(`set.size.${z}`))));
    size.addEventListener("change", () => saveSetting("size", size.value));
    dialog.replaceChildren(
      h("h2", { id: "settings-title" }, t("set.title")),
      h("div", { class: "settings-grid" },
        h("label", { class: "field" }, h("span", {}, t("set.lang")), langSel),
        checkbox("set-four", "set.four", "four"),
        checkbox("set-dark", "set.dark", "dark"),
        h("label", { class: "field" }, h("span", {}, t("set.size")), size),
        checkbox("set-motion", "set.motion", "motion"),
        sound ? checkbox("set-sound", "set.sound", "sound") : null),
      h("div", { class: "row" },
        h("button", { type: "button", id: "settings-close", class: "primary",
                      onclick: () => dialog.close() }, t("set.close"))));
  };
  build();
  const btn = h("button", { type: "button", id: "open-settings", class: "header-btn",
                            "aria-haspopup": "dialog", onclick: () => { build(); dialog.showModal(); } },
    t("set.open"));
  header.append(btn);
  document.body.append(dialog);
  return { rebuild: () => { build(); btn.textContent = t("set.open"); } };
}

function valueText(v) {
  if (v === null || v === undefined || (Array.isArray(v) && !v.length)) return t("rules.none");
  if (v === true) return t("rules.yes");
  if (v === false) return t("rules.no");
  if (Array.isArray(v)) return v.join(", ");
  return String(v);
}

/** The rules of a preset, with its options (and the values at this table, when given). */
export function rulesContent(game, { options = null, defaults = null, room = null } = {}) {
  const l = lang();
  const paras = (RULES[l] && RULES[l][game]) || RULES.en[game] || [];
  const box = h("div", { class: "rules", lang: l === "zh" ? "zh-CN" : "en" });
  for (const p of paras) box.append(h("p", {}, p));
  const opts = { ...(defaults || {}), ...(options || {}), ...(room || {}) };
  const names = Object.keys(opts).filter((k) => k !== "players");
  if (names.length) {
    box.append(h("h3", {}, options ? t("rules.options") : t("rules.optionsPreset")));
    const dl = h("dl", { class: "rules-options" });
    for (const k of names) {
      const desc = (OPTIONS[l] && OPTIONS[l][k]) || OPTIONS.en[k] || k;
      const v = opts[k];
      const named = typeof v === "string" && has(`val.${v}`);
      dl.append(h("dt", {}, desc), h("dd", {}, h("code", {}, k), " = ",
        named ? h("code", {}, v) : valueText(v), named ? ` (${t(`val.${v}`)})` : ""));
    }
    box.append(dl);
  }
  box.append(h("p", { class: "muted" }, t("rules.full")));
  return box;
}

/** A "Rules" button that opens a dialog over the page (the table stays where it is). */
export function rulesDialog(getInfo) {
  const dialog = h("dialog", { id: "rules-dialog", class: "dialog", "aria-labelledby": "rules-title" });
  document.body.append(dialog);
  const open = () => {
    const info = getInfo();
    if (!info || !info.game) return;
    dialog.replaceChildren(
      h("h2", { id: "rules-title" }, t("rules.title", { game: t(`game.${info.game}`) })),
      rulesContent(info.game, info),
      h("div", { class: "row" }, h("button", { type: "button", class: "primary", id: "rules-close",
        onclick: () => dialog.close() }, t("set.close"))));
    dialog.showModal();
  };
  return open;
}

export function optionDescription(name) {
  const l = lang();
  return (OPTIONS[l] && OPTIONS[l][name]) || OPTIONS.en[name] || null;
}

applySettings();
