// What every display page shares: the connection (connect.js) with its banner, the JSON of each
// message, the table's status (online, "OFFLINE since 21:14"), commands with MQTT 5 correlation
// data, and small DOM helpers. Pages never build markup from text: every text is textContent.
import { connectPage, tablePrefix } from "./connect.js";

export { tablePrefix };

const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const RANKS = { T: "10" };

/** An element with a class and a text. */
export function el(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== "") node.textContent = text;
  return node;
}

/** Set a node's text only when it changed (no layout work for the same text). */
export function setText(node, text) {
  const value = text ?? "";
  if (node.textContent !== value) node.textContent = value;
}

export function chips(amount) {
  return typeof amount === "number" ? amount.toLocaleString("en-US") : "";
}

/** When a rotation's game changes, from the views' hands_left (HO-13). */
export function changesIn(handsLeft) {
  if (handsLeft === null || handsLeft === undefined) return "at the next level";
  if (handsLeft === 0) return "from the next deal";
  return handsLeft === 1 ? "after 1 more hand" : `after ${handsLeft} more hands`;
}

/** The game and stakes a header shows: the table's, or at a table of mixed games the game in
 * play with the rotation's name and what comes next ("razz 200/400 ante 25 bring-in 50 ·
 * H.O.R.S.E.: stud after 3 more hands"). */
export function gameText(view) {
  const r = view.rotation;
  if (!r) return `${view.game_name} ${view.stakes}`;
  return `${r.game.name} ${r.game.stakes} · ${r.name}: ${r.next.name} ${changesIn(r.hands_left)}`;
}

/** "21:14" in the screen's local time, from seconds since the epoch. */
export function clock(ts) {
  if (typeof ts !== "number" || !ts) return "";
  const d = new Date(ts * 1000);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** "45 s", "12 min", "2 h 05" since ts (seconds since the epoch). */
export function since(ts, now = Date.now() / 1000) {
  if (typeof ts !== "number" || !ts) return "";
  const s = Math.max(0, Math.floor(now - ts));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}`;
}

/** since() to the minute ("< 1 min", "3 min", "1 h 05"): for clocks on a wall of tiles, where a
 * text changing every second costs a restyle and a repaint per tile per second. */
export function sinceMinutes(ts, now = Date.now() / 1000) {
  if (typeof ts !== "number" || !ts) return "";
  return now - ts < 60 ? "< 1 min" : since(ts, now);
}

/** A card as the views write it ("As", "Td"; "??" face down) as an element. */
export function cardEl(text) {
  const node = el("span", "card");
  if (typeof text !== "string" || text.length !== 2 || text === "??") {
    node.classList.add("back");
    node.textContent = "\u00a0";
    return node;
  }
  const rank = RANKS[text[0]] ?? text[0];
  const suit = text[1];
  node.classList.add(`suit-${suit}`);
  node.dataset.card = text;
  node.textContent = rank + (SUITS[suit] ?? suit);
  return node;
}

export function cardsEl(cards, className = "cards") {
  const box = el("span", className);
  for (const card of cards ?? []) box.append(cardEl(card));
  return box;
}

/** The JSON of a message, or null (the bridge's "1"/"0" are not JSON objects). */
export function parse(text) {
  try {
    const data = JSON.parse(text);
    return data && typeof data === "object" ? data : null;
  } catch {
    return null;
  }
}

/** The last level of a table's topic ("dealer", "alerts", "cmd_result") and its table. */
export function topicParts(topic) {
  const parts = topic.split("/");
  return { room: parts[1], table: parts[3], leaf: parts.slice(4).join("/") };
}

/**
 * Start a display: log in (connect.js), subscribe to options.topics(login) on every connection,
 * hand each message to options.onMessage(topic, data, text, packet), keep #connection and the
 * #stale banner true. Returns { login(), client(), send(topic, body) }.
 */
export function startDisplay(options) {
  const connection = document.getElementById("connection");
  const stale = document.getElementById("stale");
  let connects = 0;
  let lostAt = null;
  let login = null;
  const showState = (state, detail) => {
    if (state === "connected") {
      connection.dataset.connects = String(++connects);
      lostAt = null;
    } else if (state !== "login" && state !== "connecting" && lostAt === null && connects > 0) {
      lostAt = Date.now() / 1000;
    }
    connection.dataset.state = state;
    connection.textContent = state === "connected" ? detail : detail ? `${state}: ${detail}` : state;
    if (stale) {
      stale.hidden = lostAt === null;
      stale.textContent =
        lostAt === null ? "" : `NOT CONNECTED since ${clock(lostAt)}: what this screen shows may be out of date`;
    }
    document.body.dataset.connection = state;
    options.onState?.(state, detail);
  };
  const session = connectPage({
    topics: (current) => {
      login = current;
      return options.topics(current);
    },
    onMessage: (topic, text, packet) => options.onMessage(topic, parse(text), text, packet),
    onState: showState,
    form: document.getElementById("login"),
    needsTable: options.needsTable,
  });
  document.getElementById("log-out")?.addEventListener("click", () => session.logOut());
  return {
    login: () => login,
    client: () => session.client(),
    /** Publish a command (JSON) at QoS 1 with fresh correlation data; resolves with its id (the
     * hex the table echoes in cmd_result's "correlation") once the broker has it. */
    send(topic, body) {
      const id = randomHex(8);
      const client = session.client();
      return new Promise((resolve, reject) => {
        if (!client || !client.connected) {
          reject(new Error("not connected to the broker"));
          return;
        }
        client.publish(
          topic,
          JSON.stringify(body),
          {
            qos: 1,
            properties: {
              correlationData: id,
              contentType: "application/json",
              payloadFormatIndicator: true,
              messageExpiryInterval: 120,
            },
          },
          (error) => (error ? reject(error) : resolve(hexOf(id))),
        );
      });
    },
  };
}

function randomHex(bytes) {
  const data = new Uint8Array(bytes);
  crypto.getRandomValues(data);
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The hex of a text's bytes, as the table writes correlation data back (bytes.hex()). */
export function hexOf(text) {
  return Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The table's status line: online, or "OFFLINE since 21:14" (status is not ordered by seq: the
 * retained value is the truth, docs/mqtt.md). */
export function statusText(status) {
  if (!status) return { offline: false, text: "" };
  if (status.state === "offline") {
    const why = status.reason === "stopped" ? "stopped" : status.reason === "connection lost" ? "connection lost" : "";
    return { offline: true, text: `OFFLINE since ${clock(status.since)}${why ? ` (${why})` : ""}` };
  }
  return { offline: false, text: `online since ${clock(status.since)}` };
}

/** Severity order, the worst first (tablectl.core.effects.Severity). */
export const SEVERITY_RANK = { void: 0, misdeal: 1, floor: 2, correct: 3, info: 4 };

/**
 * The raw messages, in a closed <details> at the bottom of the dealer's and the table's page:
 * for whoever sets a screen up (what arrived, its seq and epoch).
 */
export function rawPanel(container) {
  // The newest message of each topic, as received. Its heading (topic, seq) is written as it
  // arrives; its body, pretty-printed, only while the panel is open (its <details>): a closed
  // panel must not cost the screen a JSON round trip per message.
  const shown = new Map(); // topic -> { element, text, data }
  const box = container?.closest("details") ?? null;
  const fill = (entry) => {
    entry.element.lastChild.textContent = entry.data ? JSON.stringify(entry.data, null, 1) : entry.text;
  };
  box?.addEventListener("toggle", () => {
    if (box.open) for (const entry of shown.values()) fill(entry);
  });
  return (topic, text, packet, data = parse(text)) => {
    if (!container) return;
    let entry = shown.get(topic);
    if (!entry) {
      const element = el("section", "message");
      element.dataset.topic = topic;
      element.append(el("h2"), el("pre"));
      container.append(element);
      entry = { element };
      shown.set(topic, entry);
    }
    entry.text = text;
    entry.data = data;
    const seq = data ? `seq ${data.seq} · epoch ${data.epoch}` : "";
    entry.element.dataset.seq = seq;
    entry.element.firstChild.textContent = `${topic}${packet.retain ? " (retained)" : ""} ${seq}`;
    if (!box || box.open) fill(entry);
  };
}
