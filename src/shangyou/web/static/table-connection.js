// The table page's connection: one WebSocket to /ws/{table_id}, opened again by itself. After a
// close it comes back with a backoff; at once when the table moved to another server (close
// 1012); a server heard from too little is pinged, then given up (a paused server never closes
// its sockets) and the next attempt is named `?via=N` so the proxy may send it to another node.
// What the page does with the messages, and with a close that ends it, is the page's (table.js).
// docs/protocol.md, "The table page".

import { t } from "./i18n.js";

// Reconnecting: exponential backoff with jitter (each delay drawn between half and all of
// RETRY_BASE_MS * 2^tries, at most RETRY_MAX_MS), so that the clients of a server that went away
// do not all come back at the same moment; a client told its table moved comes back at once.
const RETRY_BASE_MS = 250;
const RETRY_MAX_MS = 8000;
const MOVED = 1012;         // the close code of a table another server runs now: reconnect
const NO_TABLE = 4404;      // no such table: nothing to reconnect to
// A silent server: a ping every PING_MS; nothing at all heard for PING_MS + PONG_MS and the
// socket is given up and made again. A socket not welcomed OPEN_MS after it was made is given up
// too, whatever it heard (a pong says a server is there, not that it took the socket up).
const PING_MS = 5000;
const PONG_MS = 4000;
const OPEN_MS = 6000;
const SILENT = 0;           // the "close code" of a socket given up as silent
const SILENT_JITTER_MS = 500;

/**
 * The connection of the page `P`: its state `S` (the socket and its timers live there, where
 * the tests read them), `$` (an element by id), `tableId`, `hello()` (the message sent when a
 * socket opens), `onMessage(msg)` (every message, parsed), `onDrop()` (the socket is gone:
 * forget what waited on it), `onEnd(code)` (true when a close with this code ends the page's
 * attempts: the page shows why) and `showAlert(text)`.
 */
export function makeConnection(P) {
  const { S, $, tableId } = P;

  function wsUrl() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // after a silent server was given up, the attempt is named (?via=N): the proxy sends every
    // socket of a table to one node by a hash of its id and this, so the next attempt may reach
    // another node (a paused node accepts connections and answers none: docs/deploy.md)
    const via = S.silentTries ? `?via=${S.silentTries}` : "";
    return `${proto}//${location.host}/ws/${encodeURIComponent(tableId)}${via}`;
  }

  function connect() {
    if (S.stopped || (S.ws && S.ws.readyState <= WebSocket.OPEN)) return;
    clearTimeout(S.retryTimer);
    setConn(S.everConnected ? "t.conn.reconnecting" : "t.conn.connecting");
    let ws;
    try {
      ws = new WebSocket(wsUrl());
    } catch (e) {
      scheduleReconnect();
      return;
    }
    S.ws = ws;
    S.heardAt = S.openedAt = Date.now();
    S.welcomed = false;
    watch(ws);
    ws.addEventListener("open", () => {
      S.kicked = false;
      send(P.hello());
    });
    ws.addEventListener("message", (e) => {
      if (S.ws !== ws) return;
      S.heardAt = Date.now();
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === "welcome") attached();
      P.onMessage(msg);        // a "pong" only tells that the server is there: S.heardAt
    });
    ws.addEventListener("close", (e) => { if (S.ws === ws) dropped(e.code); });
    ws.addEventListener("error", () => { /* the close event follows */ });
  }

  /** The server welcomed this socket: the page is attached to its table again. */
  function attached() {
    S.connected = true;
    S.everConnected = true;
    S.welcomed = true;
    S.retry = 0;          // attached again: the next drop starts the backoff over
    S.silentTries = 0;    // ... and goes to the table's own node first
    renderConn();
  }

  /** The socket is gone (closed with ``code``, or given up: SILENT): reconnect as the code
   * says. */
  function dropped(code) {
    clearInterval(S.pingTimer);
    const wasConnected = S.connected;
    S.ws = null;
    S.connected = false;
    P.onDrop();
    S.droppedAt = performance.now();
    S.resumedAt = null;
    if (P.onEnd(code)) return;
    if (code === NO_TABLE) { S.stopped = true; }
    // another server runs the table now (the server stops, or another node took it over):
    // back at once, to any server (the servers spread these: a draining node hands its tables
    // on one at a time); the usual backoff if that socket fails before its welcome
    if (code === MOVED && wasConnected) { S.retry = 0; connect(); return; }
    // a silent server given up: the attempt waited long already and the next one, named
    // another way (wsUrl), may reach another node: again soon, without growing the backoff
    if (code === SILENT) {
      S.silentTries = (S.silentTries || 0) + 1;
      renderConn();
      clearTimeout(S.retryTimer);
      S.retryTimer = setTimeout(connect, Math.random() * SILENT_JITTER_MS);
      return;
    }
    scheduleReconnect();
  }

  /** Ping the server every PING_MS; give the socket up when nothing was heard for too long
   * (a paused or unreachable server, a half-open connection): its close may never come. */
  function watch(ws) {
    // S.heardAt is Date.now() of the last message: a laptop that slept is past the deadline
    // when it wakes (a fake clock of the tests moves it as it moves the timers)
    clearInterval(S.pingTimer);
    S.pingId = 0;
    S.pingedAt = 0;
    S.pingTimer = setInterval(() => {
      if (S.ws !== ws) { clearInterval(S.pingTimer); return; }
      const silent = Date.now() - (S.welcomed ? S.heardAt : S.openedAt);
      if (silent > (S.welcomed ? PING_MS + PONG_MS : OPEN_MS)) {
        S.ws = null;
        try { ws.close(); } catch { /* closing a socket that never opened */ }
        dropped(SILENT);
        return;
      }
      if (ws.readyState === WebSocket.OPEN &&
          Date.now() - Math.max(S.heardAt, S.pingedAt) >= PING_MS - 500) {
        S.pingedAt = Date.now();          // one ping, then the next after PING_MS more
        S.pingId += 1;
        ws.send(JSON.stringify({ type: "ping", id: S.pingId }));
      }
    }, 1000);
  }

  function scheduleReconnect() {
    renderConn();
    if (S.stopped) return;
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(S.retry, 10));
    const delay = ceiling / 2 + Math.random() * ceiling / 2;
    S.retry += 1;
    clearTimeout(S.retryTimer);
    S.retryTimer = setTimeout(connect, delay);
  }

  /** Now, not at the backoff's time (the tab is shown again, the network is back). */
  function reconnectNow() {
    if (!S.stopped && !S.ws) { S.retry = 0; connect(); }
  }

  /** Send ``msg`` if the socket is open (else say so): whether it was sent. */
  function send(msg) {
    if (S.stopped) return false;
    if (!S.ws || S.ws.readyState !== WebSocket.OPEN) {
      P.showAlert(t("t.notConnected"));
      return false;
    }
    S.ws.send(JSON.stringify(msg));
    return true;
  }

  function setConn(key) {
    S.connKey = key;
    renderConn();
  }

  /** The connection indicator and the "Reconnecting…" banner. */
  function renderConn() {
    const c = $("conn");
    const key = S.stopped && !S.connected ? "t.conn.disconnected"
      : S.connected ? "t.conn.connected" : (S.connKey || "t.conn.connecting");
    c.textContent = t(key);
    c.classList.toggle("down", !S.connected);
    // the banner: whenever this page is not attached to its table and is trying to be
    $("reconnecting").hidden = S.connected || S.stopped;
    document.body.dataset.connected = S.connected ? "1" : "";
  }

  return { connect, send, reconnectNow, renderConn };
}
