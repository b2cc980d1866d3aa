// The floor dashboard (/floor): every table of the room as a tile, from each table's small retained
// summary and its status; the room's alert log; a click opens a table: its floor view (hand in
// progress, rulings, remedies), the table's record of the hand in progress and its last hands (its
// retained hands topic, replayable step by step with the pot after each), and the floor's commands
// on cmd/floor/<user> with a confirmation step.
//
// Smooth with 200 tables (docs/displays.md; ../shared/notes/displays-research.md 3.4): the tiles
// are built once and updated in place (textContent, classes and attributes only where they
// changed); the messages of a frame are coalesced per table, the newest winning, and applied in
// one requestAnimationFrame; one timer a second moves on only the clock texts that change and
// flashes only the flashing tiles; alerts have their own list, which a flood of tile updates
// cannot hold up.
import { subscriptionQos } from "./connect.js";
import { Follower } from "./follower.js";
import {
  SEVERITY_RANK, cardsEl, changesIn, chips, clock, el, gameText, setText, sinceMinutes, startDisplay, statusText,
  topicParts,
} from "./display.js";

const $ = (id) => document.getElementById(id);
const ALERT_SEVERITIES = new Set(["void", "misdeal", "floor"]);
const LOG_LIMIT = 300;
const TABLE_ORDER = new Intl.Collator(undefined, { numeric: true });
const STATE_WORDS = { dealing: "dealing", between_hands: "between hands", paused: "PAUSED", offline: "OFFLINE" };

const tables = new Map(); // table -> { parts, follower, summary, status, bridge }
const dirty = new Set(); // tables whose tile must be drawn in the next frame
const FLASHING = new Set(["misdeal", "void"]);
const flashing = new Set(); // the tiles of those severities, which the clock timer flashes
let frame = 0;
let room = "main";
let drill = null; // the opened table: { table, view, hands: the table's record, replay: { hand, step } }
const recovering = new Set(); // tables whose floor snapshot is read for missed alerts
const sentCommands = new Map(); // correlation hex -> its entry in the results list
let beeps = 0;
let audio = null;
let soundOn = localStorage.getItem("tablectl.floor.sound") !== "off";

const display = startDisplay({
  needsTable: false,
  topics(login) {
    room = login.room;
    const base = `cardroom/${login.room}/table/+/`;
    const topics = ["summary", "status", "bridge", "alerts", "cmd_result"].map((t) => base + t);
    // Subscribed again on every connection: the opened table and any recovery in progress.
    for (const table of openTopicsTables()) topics.push(...tableTopics(table));
    return topics;
  },
  onMessage,
});

function openTopicsTables() {
  const set = new Set(recovering);
  if (drill) set.add(drill.table);
  return set;
}

function tableTopics(table) {
  return [`cardroom/${room}/table/${table}/floor`, `cardroom/${room}/table/${table}/hands`];
}

function entry(table) {
  let item = tables.get(table);
  if (!item) {
    item = { parts: buildTile(table), follower: new Follower(), summary: null, status: null, bridge: null };
    tables.set(table, item);
  }
  return item;
}

function onMessage(topic, data, text) {
  const { table, leaf } = topicParts(topic);
  if (!table) return;
  const item = entry(table);
  if (leaf === "bridge") {
    item.bridge = text.trim();
    touch(table);
    return;
  }
  if (!data) return;
  if (leaf === "status") {
    item.status = data; // not ordered by seq: the retained value is the truth
    touch(table);
    return;
  }
  const verdict = item.follower.accept(topic, data);
  if (verdict === "repeat" || verdict === "stale") return;
  if (leaf === "summary") {
    item.summary = data.state; // the newest wins; drawn in the next frame
    touch(table);
  } else if (leaf === "alerts") {
    if (data.kind === "ruling" && data.ruling) logAlert(table, { ...data.ruling, seq: data.seq, ts: data.ts, hand: data.hand });
    if (verdict === "gap") recover(table);
  } else if (leaf === "floor") {
    for (const ruling of item.follower.rulingsMissed(data)) {
      if (ALERT_SEVERITIES.has(ruling.severity)) logAlert(table, ruling, true);
    }
    if (recovering.delete(table) && drill?.table !== table) unsubscribe(tableTopics(table));
    if (drill?.table === table) drillSnapshot(data);
  } else if (leaf === "hands") {
    if (drill?.table === table) drillHands(data);
  } else if (leaf === "cmd_result") {
    commandAnswered(table, data);
  }
}

function touch(table) {
  dirty.add(table);
  if (!frame) frame = requestAnimationFrame(flush);
}

// -- the grid ------------------------------------------------------------------------------------

function buildTile(table) {
  const tile = el("button", "tile");
  tile.type = "button";
  tile.dataset.table = table;
  const parts = { tile };
  const line = (cls, ...names) => {
    const row = el("div", `row ${cls}`);
    for (const name of names) {
      parts[name] = el("span", name);
      row.append(parts[name]);
    }
    tile.append(row);
  };
  line("top", "name", "seats", "state");
  line("game", "stakes", "hph");
  line("pace", "last");
  line("staff", "dealer", "down");
  line("alert", "alerts", "worst");
  parts.name.textContent = `Table ${table}`;
  // In order of the tables' names (2 before 10): a binary search with one collator. A
  // localeCompare with options makes a collator per call, and a scan of the tiles for each new
  // one took 370 ms of the first 200 tiles' burst (bench/displays.py).
  const grid = $("grid");
  const tiles = grid.children;
  let low = 0;
  let high = tiles.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (TABLE_ORDER.compare(tiles[middle].dataset.table, table) > 0) high = middle;
    else low = middle + 1;
  }
  grid.insertBefore(tile, tiles[low] ?? null);
  return parts;
}

function flush() {
  frame = 0;
  for (const table of dirty) drawTile(table);
  dirty.clear();
  drawCounts();
}

function drawTile(table) {
  const item = tables.get(table);
  const p = item.parts;
  const s = item.summary;
  const status = statusText(item.status);
  const state = status.offline ? "offline" : s?.table_state ?? "unknown";
  // Attributes only where they change: a write of the same value still restyles the tile.
  if (p.tile.dataset.state !== state) p.tile.dataset.state = state;
  setText(p.state, STATE_WORDS[state] ?? "waiting");
  if (s) {
    setText(
      p.stakes,
      `${s.game} ${s.stakes}` + (s.rotation ? ` · ${s.rotation.name}: ${s.rotation.next} ${changesIn(s.rotation.hands_left)}` : ""),
    );
    setText(p.seats, `${s.seats_taken}/${s.seats}`);
    setText(p.hph, `${s.hands_per_hour}/h`);
    setText(p.dealer, s.dealer ?? "no dealer");
    setText(p.alerts, s.alerts > 1 ? `${s.alerts}×` : "");
    const severity = s.worst?.severity ?? "";
    if (p.tile.dataset.severity !== severity) p.tile.dataset.severity = severity;
    if (FLASHING.has(severity)) flashing.add(p.tile);
    else if (flashing.delete(p.tile)) p.tile.classList.remove("flash-on");
  }
  drawClocks(item);
  // The bottom line: the table offline first, then its worst open alert, then the bridge.
  const worst = s?.worst ? `${s.worst.rule}: ${s.worst.text}` : "";
  setText(p.worst, status.offline ? status.text : worst || (item.bridge === "0" ? "bridge to the central broker down" : ""));
  p.tile.classList.toggle("bridge-down", item.bridge === "0");
}

// The tile's clocks ("last hand 3 min ago"), to the minute: drawn with the tile, and by the
// clock timer alone when their text changes. With seconds, 200 tiles' texts changed every second
// and the grid was restyled and repainted each time (bench/displays.py: the long frames at 4x
// CPU throttle, about a Pi).
function drawClocks(item) {
  const { parts: p, summary: s } = item;
  if (!s) return;
  setText(p.last, s.last_hand_at ? `last hand ${sinceMinutes(s.last_hand_at)} ago` : "no hand yet");
  setText(p.down, s.dealer_since ? `${sinceMinutes(s.dealer_since)} in the down` : "");
}

function drawCounts() {
  let offline = 0;
  let alerts = 0;
  for (const item of tables.values()) {
    if (statusText(item.status).offline) offline += 1;
    alerts += item.summary?.alerts ?? 0;
  }
  setText($("room-counts"), `${tables.size} tables · ${offline} offline · ${alerts} open alerts`);
}

$("grid").addEventListener("click", (event) => {
  const tile = event.target.closest(".tile");
  if (tile) openTable(tile.dataset.table);
});

// Once a second: the misdeal and void tiles flash (a class on those tiles alone: one on the body
// restyled all 200 tiles each second, and a CSS animation repainted the flashing ones every
// frame), and the tiles' clocks move on where their text changes. Skipped while the page is
// hidden; the visibilitychange below draws what waited.
let flashOn = false;
setInterval(() => {
  if (document.hidden) return;
  flashOn = !flashOn;
  for (const tile of flashing) tile.classList.toggle("flash-on", flashOn);
  for (const item of tables.values()) drawClocks(item);
}, 1000);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && dirty.size && !frame) frame = requestAnimationFrame(flush);
});

// -- alerts --------------------------------------------------------------------------------------

function logAlert(table, ruling, recovered = false) {
  const log = $("alert-log");
  const item = el("li", `logged sev-${ruling.severity}`);
  item.dataset.table = table;
  item.dataset.rule = ruling.rule;
  if (ruling.hand) item.dataset.hand = String(ruling.hand);
  item.append(
    el("time", "", clock(ruling.ts)),
    el("b", "where", `Table ${table}${ruling.hand ? ` · hand ${ruling.hand}` : ""}`),
    el("span", "rule", ruling.rule),
    el("span", "text", ruling.text),
  );
  if (recovered) item.append(el("span", "recovered", "(recovered)"));
  // The worst first, then the newest: an entry goes before the first one less severe or as severe.
  const rank = SEVERITY_RANK[ruling.severity] ?? 9;
  item.dataset.rank = String(rank);
  const before = [...log.children].find((other) => Number(other.dataset.rank) >= rank);
  log.insertBefore(item, before ?? null);
  while (log.children.length > LOG_LIMIT) log.lastElementChild.remove();
  beep(ruling.severity);
}

$("alert-log").addEventListener("click", (event) => {
  const item = event.target.closest("li");
  if (item) openTable(item.dataset.table);
});

function recover(table) {
  // A gap: the rulings missed are in the retained floor snapshot (docs/mqtt.md).
  if (recovering.has(table)) return;
  recovering.add(table);
  if (drill?.table !== table) subscribe(tableTopics(table).slice(0, 1));
}

function beep(severity) {
  beeps += 1;
  document.body.dataset.beeps = String(beeps);
  if (!soundOn) return;
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = severity === "floor" ? 660 : 880;
    gain.gain.setValueAtTime(0.2, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch {
    // no audio device: the colour stands out alone
  }
}

function drawSoundButton() {
  const button = $("sound");
  button.textContent = soundOn ? "Sound on" : "Sound off";
  button.setAttribute("aria-pressed", String(soundOn));
}
$("sound").addEventListener("click", () => {
  soundOn = !soundOn;
  localStorage.setItem("tablectl.floor.sound", soundOn ? "on" : "off");
  if (soundOn) {
    audio ??= new AudioContext();
    audio.resume();
  }
  drawSoundButton();
});
drawSoundButton();

// -- subscriptions of the opened table -----------------------------------------------------------

function subscribe(topics) {
  display.client()?.subscribe(Object.fromEntries(topics.map((t) => [t, { qos: subscriptionQos(t) }])));
}

function unsubscribe(topics) {
  display.client()?.unsubscribe(topics);
}

function openTable(table) {
  if (drill?.table === table) return;
  if (drill) closeTable();
  drill = { table, view: null, hands: null, replay: null };
  $("drill").hidden = false;
  $("drill").dataset.table = table;
  setText($("drill-title"), `Table ${table}`);
  setText($("drill-prompt"), "Reading the table's floor view…");
  $("hands").replaceChildren();
  $("replay").hidden = true;
  $("cmd-confirm").hidden = true;
  // Retained: the floor view comes at once (a table opened twice gets it again).
  for (const topic of tableTopics(table)) tables.get(table)?.follower.last.delete(topic);
  subscribe(tableTopics(table));
  drawWho();
}

function closeTable() {
  if (!drill) return;
  if (!recovering.has(drill.table)) unsubscribe(tableTopics(drill.table));
  drill = null;
  $("drill").hidden = true;
}
$("drill-close").addEventListener("click", closeTable);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeTable();
});

// -- the opened table ----------------------------------------------------------------------------

function drillSnapshot(snapshot) {
  const view = snapshot.state;
  drill.view = view;
  $("drill").dataset.seq = String(snapshot.seq);
  const status = statusText(tables.get(drill.table)?.status);
  setText($("drill-status"), status.text);
  $("drill-status").classList.toggle("offline", status.offline);
  setText(
    $("drill-title"),
    `Table ${view.table} · ${gameText(view)} · ${view.hand ? `hand ${view.hand}, ${view.street}` : "between hands"}` +
      ` · ${view.dealer ? `dealer ${view.dealer.name}` : "no dealer"}`,
  );
  setText($("drill-prompt"), view.pending ? `${view.pending.rule}: ${view.pending.text}` : view.prompt ?? (view.result ? "Hand over." : "Between hands."));
  $("drill-board").replaceChildren(cardsEl(view.board ?? view.result?.board ?? []));
  const pots = view.pots ?? [];
  setText(
    $("drill-pot"),
    view.pot !== undefined
      ? `Pot ${chips(view.pot)}${pots.length > 1 ? ` (${pots.map((p, i) => `${i ? `side ${i}` : "main"} ${chips(p.amount)}`).join(", ")})` : ""}`
      : "",
  );
  const rows = view.seats.map((seat) => {
    const row = el("tr", seat.empty ? "empty" : seat.in_hand === false ? "folded" : "");
    row.dataset.seat = String(seat.seat);
    const marks = [];
    if (view.button === seat.seat) marks.push("button");
    if (view.blind_seats?.small === seat.seat) marks.push("SB");
    if (view.blind_seats?.big === seat.seat) marks.push("BB");
    if (view.to_act === seat.seat) marks.push("to act");
    if (seat.all_in) marks.push("all in");
    if (seat.in_hand === false) marks.push("folded");
    if (seat.sitting_out) marks.push("sitting out");
    row.append(
      el("td", "", String(seat.seat)),
      el("td", "", seat.empty ? "—" : seat.name),
      el("td", "num", seat.empty ? "" : chips(seat.stack)),
      el("td", "num", seat.bet ? chips(seat.bet) : ""),
      el("td", "", marks.join(", ")),
    );
    return row;
  });
  $("drill-seats").tBodies[0].replaceChildren(...rows);
  $("drill-alerts").replaceChildren(
    ...(view.open_alerts ?? []).map((alert) => {
      const box = el("div", `open-alert sev-${alert.severity}`);
      box.dataset.rule = alert.rule;
      box.append(el("b", "rule", alert.rule), el("span", "text", alert.text));
      if (alert.kind === "ruling" || alert.kind === "floor_call") {
        for (const decision of ["accept", "reject"]) {
          const button = el("button", decision === "accept" ? "accept" : "reject", decision === "accept" ? "Accept" : "Reject");
          button.type = "button";
          button.dataset.decision = decision;
          button.addEventListener("click", () => {
            $("cmd-kind").value = "override";
            $("cmd-ruling").value = alert.rule;
            $("cmd-decision").value = decision;
            showFields();
            review();
          });
          box.append(button);
        }
      }
      return box;
    }),
  );
  $("drill-rulings").replaceChildren(
    ...(view.rulings ?? []).map((r) => {
      const item = el("li", `sev-${r.severity}`);
      item.append(el("b", "", r.rule), el("span", "", ` ${r.text}`));
      return item;
    }),
  );
  $("drill-overrides").replaceChildren(
    ...(view.overrides ?? []).map((o) =>
      el("li", "", `Hand ${o.hand}: ${o.ruling ?? ""} ${o.decision ?? ""} by ${o.by}${o.user ? ` (${o.user})` : ""}`),
    ),
  );
}

// The table's record (its hands topic): the hand in progress and the last hands, newest first,
// each step with the pot after it as the table's engine has it.
function drillHands(snapshot) {
  drill.hands = snapshot.state;
  $("hands").dataset.seq = String(snapshot.seq);
  drawHands();
}

function handLabel(hand) {
  const how = hand.in_progress ? "in progress" : { misdeal: "misdeal", void: "voided", played: "over" }[hand.end] ?? "ended";
  return `Hand ${hand.hand} · ${hand.steps.length} steps · ${how}`;
}

function drawHands() {
  const record = drill.hands;
  const items = (record?.hands ?? []).map((hand) => {
    const item = el("li", "hand");
    item.dataset.hand = String(hand.hand);
    if (drill.replay?.hand === hand.hand) item.classList.add("chosen");
    const button = el("button", "", handLabel(hand));
    button.type = "button";
    button.addEventListener("click", () => startReplay(hand.hand));
    item.append(button);
    return item;
  });
  $("hands").replaceChildren(...items);
  if (record?.hands_left_out) $("hands").append(el("li", "note", `${record.hands_left_out} older hands: tablectl replay`));
  if (drill.replay) drawReplay();
}

function replayedHand() {
  return drill?.replay && (drill.hands?.hands ?? []).find((hand) => hand.hand === drill.replay.hand);
}

function startReplay(number) {
  drill.replay = { hand: number, step: 0 };
  $("replay").hidden = false;
  drawHands();
}

function drawReplay() {
  const hand = replayedHand();
  const replay = $("replay");
  if (!hand) {
    replay.hidden = true; // no longer among the table's last hands
    return;
  }
  replay.hidden = false;
  const count = hand.steps.length;
  // A hand in progress followed at its newest step stays there as steps come in.
  if (drill.replay.follow) drill.replay.step = count - 1;
  const index = Math.max(0, Math.min(drill.replay.step, count - 1));
  drill.replay.step = index;
  drill.replay.follow = hand.in_progress && index === count - 1;
  const step = hand.steps[index];
  replay.dataset.hand = String(hand.hand);
  replay.dataset.step = String(index + 1);
  replay.dataset.steps = String(count);
  setText($("replay-title"), `Hand ${hand.hand}: step ${index + 1} of ${count}${hand.steps_omitted ? ` (${hand.steps_omitted} steps left out)` : ""}`);
  setText($("replay-step"), step ? `${step.street}: ${step.text}` : "");
  $("replay-board").replaceChildren(cardsEl(step?.board ?? []));
  const pot = $("replay-pot");
  pot.dataset.pot = step ? String(step.pot) : "";
  setText(pot, step ? `Pot after this step: ${chips(step.pot)}` : "");
  $("replay-rulings").replaceChildren(
    ...(step?.rulings ?? []).map((r) => {
      const item = el("li", `sev-${r.severity}`);
      item.append(el("b", "", r.rule), el("span", "", ` ${r.text}`));
      return item;
    }),
  );
  setText($("replay-result"), index === count - 1 ? resultText(hand) : "");
  $("replay-steps").replaceChildren(
    ...hand.steps.map((s, i) => {
      const item = el("li", i === index ? "step chosen" : "step");
      item.dataset.step = String(i + 1);
      item.dataset.pot = String(s.pot);
      const button = el("button", "", `${s.n}. ${s.text}`);
      button.type = "button";
      button.append(el("span", "pot", chips(s.pot)));
      button.addEventListener("click", () => {
        drill.replay.step = i;
        drill.replay.follow = false;
        drawReplay();
      });
      item.append(button);
      return item;
    }),
  );
}

function resultText(hand) {
  if (hand.in_progress) return "";
  if (hand.end === "misdeal") return "Misdeal: every chip back.";
  if (hand.end === "void") return "Hand voided: every chip back.";
  const awards = hand.result?.awards ?? [];
  return awards.map((a) => `Seat ${a.seats.join(", ")} wins ${a.pot_name} ${chips(a.amount)}${a.hand ? ` (${a.hand})` : ""}`).join("; ");
}

for (const [id, move] of [["replay-first", () => 0], ["replay-prev", (s) => s - 1], ["replay-next", (s) => s + 1], ["replay-last", () => 1e9]]) {
  $(id).addEventListener("click", () => {
    const hand = replayedHand();
    if (!hand) return;
    drill.replay.step = Math.max(0, Math.min(hand.steps.length - 1, move(drill.replay.step)));
    drill.replay.follow = false;
    drawReplay();
  });
}

// -- floor commands ------------------------------------------------------------------------------

function drawWho() {
  const login = display.login();
  const supervisor = login && /^floor\.[A-Za-z0-9_-]+$/.test(login.user);
  $("cmd-form").hidden = !supervisor;
  setText(
    $("cmd-who"),
    supervisor
      ? `Sent as ${login.user} to cmd/floor/${login.user}`
      : "This login reads only: the floor's commands need a supervisor's login (floor.<name>).",
  );
  $("cmd-by").value ||= localStorage.getItem("tablectl.floor.by") ?? "";
}

function showFields() {
  const kind = $("cmd-kind").value;
  for (const label of document.querySelectorAll("#cmd-form label[data-for]")) {
    label.hidden = !label.dataset.for.split(" ").includes(kind);
  }
}
$("cmd-kind").addEventListener("change", showFields);
showFields();

function whole(id) {
  const value = $(id).value.trim();
  return value === "" ? null : Number(value);
}

let reviewed = null; // the command shown for confirmation

function command() {
  const kind = $("cmd-kind").value;
  const body = { type: "floor", v: 1, kind, by: $("cmd-by").value.trim() };
  const seat = whole("cmd-seat");
  if (kind === "override") Object.assign(body, { ruling: $("cmd-ruling").value.trim(), decision: $("cmd-decision").value });
  if (kind === "kill_hand") Object.assign(body, { seat, ...($("cmd-ruling").value.trim() ? { ruling: $("cmd-ruling").value.trim() } : {}) });
  if (kind === "move_button" || kind === "remove_player") body.seat = seat;
  if (kind === "seat_player") Object.assign(body, { seat, name: $("cmd-name").value.trim(), amount: whole("cmd-amount") ?? 0 });
  if (kind === "set_blinds") Object.assign(body, { blinds: [whole("cmd-small"), whole("cmd-big")], ante: whole("cmd-ante") ?? 0 });
  return body;
}

function describe(body) {
  const hand = drill.view?.hand ? ` (hand ${drill.view.hand})` : "";
  const what = {
    override: () => `${body.decision} ruling ${body.ruling}${hand}`,
    void_hand: () => `void the hand in progress${hand}: every chip goes back`,
    kill_hand: () => `kill seat ${body.seat}'s hand${body.ruling ? ` (${body.ruling})` : ""}${hand}`,
    move_button: () => `move the button to seat ${body.seat}`,
    set_blinds: () => `set the blinds to ${body.blinds.map(chips).join("/")}${body.ante ? ` ante ${chips(body.ante)}` : ""} from the next deal`,
    seat_player: () => `seat ${body.name} in seat ${body.seat} with ${chips(body.amount)}`,
    remove_player: () => `remove the player in seat ${body.seat}`,
  }[body.kind]();
  return `Table ${drill.table}: ${what}, by ${body.by}?`;
}

function review() {
  if (!drill) return;
  const body = command();
  if (!body.by) {
    setText($("cmd-confirm-text"), "Type your name first: the table journals who gave each command.");
    $("cmd-confirm").hidden = false;
    $("cmd-send").hidden = true;
    $("cmd-by").focus();
    return;
  }
  localStorage.setItem("tablectl.floor.by", body.by);
  reviewed = { table: drill.table, body };
  setText($("cmd-confirm-text"), describe(body));
  $("cmd-send").hidden = false;
  $("cmd-confirm").hidden = false;
}
$("cmd-form").addEventListener("submit", (event) => {
  event.preventDefault();
  review();
});
$("cmd-cancel").addEventListener("click", () => {
  reviewed = null;
  $("cmd-confirm").hidden = true;
});
$("cmd-send").addEventListener("click", async () => {
  if (!reviewed) return;
  const { table, body } = reviewed;
  reviewed = null;
  $("cmd-confirm").hidden = true;
  const login = display.login();
  const item = el("li", "sent", `${describe(body).replace(/\?$/, "")}: sending…`);
  item.dataset.state = "sending";
  $("cmd-results").prepend(item);
  try {
    body.at = Date.now() / 1000;
    const id = await display.send(`cardroom/${room}/table/${table}/cmd/floor/${login.user}`, body);
    sentCommands.set(id, { item, text: describe(body).replace(/\?$/, "") });
    if (item.dataset.state === "sending") {
      item.dataset.state = "sent";
      item.textContent = `${sentCommands.get(id).text}: sent, waiting for the table's answer`;
    }
  } catch (error) {
    item.dataset.state = "failed";
    item.textContent = `not sent: ${error.message}`;
  }
});

function commandAnswered(table, result) {
  const sent = sentCommands.get(result.correlation);
  if (!sent) return;
  sentCommands.delete(result.correlation);
  sent.item.dataset.state = result.ok ? "ok" : "refused";
  sent.item.textContent = result.ok ? `${sent.text}: taken by table ${table}` : `${sent.text}: refused: ${result.error}`;
}
