// The side panel (game facts, log, chat, host tools, the link): a column beside the table on
// wide screens, a drawer over it on phones and small windows while a game is on; the rules and
// settings are dialogs (settings.js).

const $ = (id) => document.getElementById(id);

export function initSide() {
  const side = $("side");
  const btn = $("open-side");
  const set = (open) => {
    document.body.classList.toggle("side-open", open);
    btn.setAttribute("aria-expanded", String(open));
    if (open) $("close-side").focus();
  };
  btn.addEventListener("click", () => set(!document.body.classList.contains("side-open")));
  $("close-side").addEventListener("click", () => { set(false); btn.focus(); });
  side.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && document.body.classList.contains("side-open")) {
      e.preventDefault();
      set(false);
      btn.focus();
    }
  });
}

/**
 * The share dialog: the table's link as a QR code for phones (qrcode-generator 2.0.4, MIT,
 * vendored unchanged in vendor/), the link to copy, and the system's share sheet where there
 * is one.
 */
export function initShare(link, { h, t }) {
  const btn = $("share-qr");
  let dialog = null;
  btn.addEventListener("click", async () => {
    if (!dialog) {
      const { qrcode } = await import("./vendor/qrcode-generator-2.0.4.mjs");
      const qr = qrcode(0, "M");
      qr.addData(link);
      qr.make();
      dialog = h("dialog", { id: "share-dialog", class: "dialog", "aria-labelledby": "share-title" },
        h("h2", { id: "share-title" }, t("t.shareTitle")),
        h("p", {}, t("t.shareScan")),
        h("img", { id: "share-qr-img", src: qr.createDataURL(6, 4), alt: t("t.shareQrAlt"),
                   width: String(qr.getModuleCount() * 6 + 48), height: String(qr.getModuleCount() * 6 + 48) }),
        h("p", { class: "share-url" }, h("code", {}, link)),
        h("div", { class: "row" },
          navigator.share ? h("button", { type: "button", id: "share-system",
            onclick: () => navigator.share({ url: link }).catch(() => {}) }, t("t.shareSystem")) : null,
          h("button", { type: "button", id: "share-close", onclick: () => dialog.close() }, t("set.close"))));
      document.body.append(dialog);
    }
    dialog.showModal();
  });
}
