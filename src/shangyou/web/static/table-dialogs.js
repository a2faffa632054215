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
