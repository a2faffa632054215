// Shared helpers: HTTP calls, small DOM builders, and the names of games and seats' players
// in the reader's language. The drawing of a game view is in view.js.
// Every string that comes from the server or another player goes into the page as text.

import { has, t } from "./i18n.js";

export async function api(path, { method = "GET", body } = {}) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const msg = errorText(data) || `${res.status} ${res.statusText}`;
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return data;
}

function errorText(data) {
  if (!data) return "";
  if (typeof data === "string") return data;
  if (typeof data.message === "string") return data.message;
  if (typeof data.detail === "string") return data.detail;
  if (Array.isArray(data.detail)) {
    return data.detail.map((d) => (d && d.msg) ? `${(d.loc || []).join(".")}: ${d.msg}` : String(d))
      .join("; ");
  }
  if (data.detail && typeof data.detail.message === "string") return data.detail.message;
  return JSON.stringify(data);
}

/** h("div", {class: "x", onclick: fn}, "text", child) - text children become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    // through the CSSOM: the Content-Security-Policy refuses style attributes (setAttribute)
    else if (k === "style") e.style.cssText = String(v);
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function gameFamily(game) {
  const g = String(game || "");
  if (g.startsWith("sheng-ji")) return "sheng-ji";
  if (g.startsWith("zheng-fen")) return "zheng-fen";
  return "zheng-shangyou";
}

/** A preset's name in the current language ("zheng-shangyou/owen" when unknown). */
export function gameTitle(game) {
  return has(`game.${game}`) ? t(`game.${game}`) : String(game || "");
}

/** The name a seat shows: a bot's name is made here, in the reader's language. */
export function displayName(info) {
  if (!info || info.kind === "empty") return null;
  if (info.kind === "bot") {
    const lvl = info.bot_level || "";
    const level = has(`botlevel.${lvl}`) ? t(`botlevel.${lvl}`) : lvl;
    return t("bot.name", { level, n: info.seat + 1 });
  }
  return localName(info.name);
}

/** A stored name in the reader's language: the server names its bots "Greedy bot 2". */
export function localName(name) {
  const m = /^(\w+) bot (\d+)$/.exec(String(name || ""));
  const lvl = m && m[1].toLowerCase();
  if (m && has(`botlevel.${lvl}`)) return t("bot.name", { level: t(`botlevel.${lvl}`), n: m[2] });
  const p = /^Player (\d+)$/.exec(String(name || ""));     // the server's name for a guest
  if (p) return t("t.playerN", { n: p[1] });
  return name;
}
