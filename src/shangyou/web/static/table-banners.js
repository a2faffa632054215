// The table page's banners that stop or change what the page does: the seat opened in another
// tab (or too many connections), the table closed by its host, your seat taken by the host.

import { h } from "./common.js";
import { t } from "./i18n.js";

/**
 * The banners over the page `P`: its state `S`, `$` (an element by id), `connect`,
 * `renderConn`, `render`, and `forgetToken` (drop the seat token a kick made worthless).
 */
export function makeBanners(P) {
  const { S, $, connect, renderConn, render, forgetToken } = P;

  /** Stop: this page no longer talks to the table until the player asks (a banner, a button). */
  function openedElsewhere(textKey = "t.elsewhere", buttonKey = "t.playHere") {
    S.stopped = true;
    S.connected = false;
    clearTimeout(S.retryTimer);
    if (S.ws) { const ws = S.ws; S.ws = null; try { ws.close(); } catch { /* already */ } }
    const box = $("elsewhere");
    box.replaceChildren(h("span", {}, t(textKey)), " ",
      h("button", { type: "button", id: "reconnect", onclick: () => {
        S.stopped = false; S.retry = 0; box.hidden = true; document.body.dataset.elsewhere = "";
        connect();
      } }, t(buttonKey)));
    box.hidden = false;
    document.body.dataset.elsewhere = "1";
    renderConn();
    if (S.view) render();
  }

  /** The host closed the table (or it is gone for good): no more reconnecting. */
  function tableClosed() {
    S.stopped = true;
    S.closed = true;
    clearTimeout(S.retryTimer);
    const box = $("closed-banner");
    box.dataset.i18n = "t.closed";          // kept in the page's language by translatePage
    box.textContent = t("t.closed");
    box.hidden = false;
    document.body.dataset.closed = "1";
    renderConn();
    render();
  }

  function kicked() {
    S.mySeat = null;
    S.kicked = true;           // this socket may not sit again (a new one may)
    forgetToken();
    const box = $("kicked-banner");
    box.dataset.i18n = "t.kicked";
    box.textContent = t("t.kicked");
    box.hidden = false;
    render();
  }

  return { openedElsewhere, tableClosed, kicked };
}
