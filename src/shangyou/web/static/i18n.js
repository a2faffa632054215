// Every string of the interface, in English (i18n-en.js) and Chinese (i18n-zh.js).
// t("key", {param}) looks a key up in the current language; a key missing there falls back to
// English and is recorded in `missing` (the browser test checks it stays empty). Static HTML names its strings with
// data-i18n="key" (text) and data-i18n-attr="aria-label:key;placeholder:key" (attributes).

import { en } from "./i18n-en.js";
import { zh } from "./i18n-zh.js";

const LANG_KEY = "shangyou.lang";

export const STRINGS = { en, zh };
export const LANGS = { en: "English", zh: "中文" };
export const missing = new Set();

let current = null;

export function lang() {
  if (current) return current;
  let l = null;
  try { l = localStorage.getItem(LANG_KEY); } catch { l = null; }
  if (!l || !STRINGS[l]) l = /^zh/i.test(navigator.language || "") ? "zh" : "en";
  current = l;
  return l;
}

export function setLang(l) {
  if (!STRINGS[l]) return;
  current = l;
  try { localStorage.setItem(LANG_KEY, l); } catch { /* private mode */ }
  translatePage();
}

/** Does the dictionary know this key (for keys made from data, such as option names)? */
export function has(key) {
  return key in en;
}

export function t(key, params = {}) {
  const d = STRINGS[lang()];
  // counted words: "key.one" for 1 and "key.zero" for 0 where the language has them
  const n = params && params.n;
  if (n === 1 || n === "1") { if (`${key}.one` in en) key = `${key}.one`; }
  else if ((n === 0 || n === "0") && `${key}.zero` in en) key = `${key}.zero`;
  let s = d[key];
  if (s === undefined) {
    missing.add(`${lang()}:${key}`);
    s = en[key];
    if (s === undefined) return `⟦${key}⟧`;
  }
  return s.replace(/\{(\w+)\}/g, (m, k) => (params[k] === undefined ? m : String(params[k])));
}

/** Fill the static strings of the page (data-i18n, data-i18n-attr). */
export function translatePage(root = document) {
  document.documentElement.lang = lang() === "zh" ? "zh-CN" : "en";
  for (const e of root.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of e.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key) e.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}

// for the browser tests: the dictionaries and the keys that fell back
window.__i18n = { STRINGS, missing, lang, setLang };
