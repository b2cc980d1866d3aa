// The dealer's screen (/dealer): the dealer view of one table, large, and the dealer's own commands
// on cmd/dealer (confirm, call the floor, clock in and out). The dealer view never holds a hole
// card (tablectl.views.dealer); this page shows only what it holds.
import { Follower } from "./follower.js";
import {
  cardsEl, chips, clock, el, gameText, rawPanel, setText, since, startDisplay, statusText, tablePrefix,
  topicParts,
} from "./display.js";

const $ = (id) => document.getElementById(id);
const follower = new Follower();
const raw = rawPanel($("messages"));
const pending = new Map(); // correlation hex -> what was sent, until cmd_result answers
let view = null;
let status = null;
let frame = 0;
let readsResults = false;

const display = startDisplay({
  needsTable: true,
  topics: (login) => ["status", "public", "dealer", "events", "alerts"].map((t) => tablePrefix(login) + t),
  // cmd_result, the table's answers, on its own: where the broker's ACL does not let the dealer
  // read it, its refusal must not fail the others (the page then says the broker took the
  // command, and the dealer view shows its effect).
  onState(state) {
    if (state !== "connected") return;
    const login = display.login();
    display.client()?.subscribe(`${tablePrefix(login)}cmd_result`, { qos: 1 }, (error, granted) => {
      readsResults = !error && (granted ?? []).every((g) => g.qos < 128);
    });
  },
  onMessage(topic, data, text, packet) {
    raw(topic, text, packet, data);
    if (!data) return;
    const { leaf } = topicParts(topic);
    if (leaf === "status") {
      status = data; // not ordered by seq: the retained value is the truth
      schedule();
      return;
    }
    const verdict = follower.accept(topic, data);
    if (verdict === "repeat" || verdict === "stale") return;
    if (leaf === "dealer") {
      follower.rulingsMissed(data); // the rulings of the hand: shown from the snapshot itself
      view = data.state;
      renderNow(); // the dealer acts on this: drawn now, not a frame later (a few dozen nodes)
    } else if (leaf === "cmd_result") {
      answered(data);
    } else if (leaf === "alerts") {
      document.body.classList.add("alerted");
      setTimeout(() => document.body.classList.remove("alerted"), 1500);
    }
  },
});

function schedule() {
  if (!frame) frame = requestAnimationFrame(render);
}

function renderNow() {
  if (frame) cancelAnimationFrame(frame);
  render();
}

function figure(id, value, hidden = false) {
  const box = $(id);
  box.hidden = hidden;
  setText(box.querySelector(".value"), value);
}

function seatName(seat) {
  const entry = view?.seats?.find((s) => s.seat === seat);
  return entry && entry.name ? `Seat ${seat} · ${entry.name}` : `Seat ${seat}`;
}

function render() {
  frame = 0;
  const offline = statusText(status);
  $("offline").hidden = !offline.offline;
  setText($("offline"), offline.offline ? `TABLE ${offline.text}` : "");
  document.body.classList.toggle("table-offline", offline.offline);
  if (!view) return;
  const dealerName = view.dealer ? ` · dealer ${view.dealer.name} (${since(view.dealer.since)})` : "";
  setText(
    $("title"),
    `Table ${view.table} · ${gameText(view)}` +
      (view.hand ? ` · hand ${view.hand}` : " · between hands") + dealerName,
  );
  // Devices: a lost one stands out.
  const devices = $("devices");
  devices.replaceChildren(
    ...Object.entries(view.devices ?? {}).map(([name, ok]) => {
      const pill = el("span", `device ${ok ? "ok" : "lost"}`, ok ? `${name} ok` : `${name.toUpperCase()} LOST`);
      pill.dataset.device = name;
      return pill;
    }),
  );
  renderAlerts();
  const prompt = view.hand ? view.prompt ?? "" : view.result ? resultLine(view.result) : "Press new hand to deal.";
  // A ruling that waits is told in the open alerts above, with its Confirm: the prompt says what to do.
  setText($("prompt"), prompt);
  $("prompt").classList.toggle("blocked", Boolean(view.pending));
  const options = view.options;
  $("action").hidden = !options && !view.to_act;
  figure("to-act", view.to_act ? seatName(view.to_act) : "–");
  figure("to-call", options ? (options.call ? chips(options.call) : "check") : "–");
  const structure = String(view.game ?? "")[0];
  figure(
    "min-raise",
    options ? (options.can_raise ? chips(options.min_raise_to) : options.why_no_raise || "no raise") : "–",
  );
  $("max-raise").querySelector(".label").textContent = structure === "P" ? "Max raise to (pot)" : "Max raise to";
  figure("max-raise", options && options.can_raise ? chips(options.max_raise_to) : "–");
  figure("street", view.street ?? "–");
  figure("pot", view.pot !== undefined ? chips(view.pot) : "–");
  const pots = view.pots ?? [];
  $("side-pots").replaceChildren(
    ...(pots.length > 1
      ? pots.map((pot, i) => el("span", "side-pot", `${i ? `Side pot ${i}` : "Main"} ${chips(pot.amount)} · seats ${pot.seats.join(", ")}`))
      : []),
  );
  $("board").replaceChildren(cardsEl(view.board ?? []));
  $("rulings").replaceChildren(
    ...(view.rulings ?? []).map((r) => {
      const item = el("li", `ruling sev-${r.severity}`);
      item.dataset.rule = r.rule;
      item.append(el("b", "rule", r.rule), el("span", "text", r.text), el("time", "", clock(r.ts)));
      return item;
    }),
  );
  $("rulings-box").hidden = !(view.rulings ?? []).length;
  $("clock-out").hidden = !view.dealer;
  $("clock-in").textContent = view.dealer ? "Clock in (next dealer)" : "Clock in";
}

function resultLine(result) {
  const parts = result.awards.map((a) => {
    const who = a.seats.map(seatName).join(" and ");
    return `${who} wins ${a.pot_name} (${chips(a.amount)})${a.hand ? `: ${a.hand}` : ""}`;
  });
  return `Hand ${result.hand}: ${parts.join("; ")}. Press new hand.`;
}

function renderAlerts() {
  const box = $("open-alerts");
  const alerts = view.open_alerts ?? [];
  box.replaceChildren(
    ...alerts.map((alert) => {
      const item = el("div", `open-alert sev-${alert.severity} kind-${alert.kind}`);
      item.dataset.rule = alert.rule;
      item.append(el("b", "rule", alert.rule), el("span", "text", alert.text));
      if (alert.since) item.append(el("time", "", since(alert.since)));
      if (alert.needs_confirm) {
        const confirm = el("button", "big confirm", "Confirm");
        confirm.type = "button";
        confirm.addEventListener("click", () => command({ action: "confirm" }, `Confirm ${alert.rule}`));
        item.append(confirm);
      }
      return item;
    }),
  );
  box.hidden = !alerts.length;
}

async function command(fields, label) {
  const login = display.login();
  if (!login) return;
  const body = { type: "dealer_command", v: 1, ...fields, at: Date.now() / 1000 };
  const line = $("cmd-result");
  line.dataset.state = "sending";
  setText(line, `${label}: sending…`);
  try {
    const id = await display.send(`${tablePrefix(login)}cmd/dealer`, body);
    pending.set(id, label);
    if (line.dataset.state === "sending") {
      line.dataset.state = "sent";
      setText(line, readsResults ? `${label}: sent, waiting for the table's answer` : `${label}: sent (the broker has it)`);
    }
  } catch (error) {
    line.dataset.state = "failed";
    setText(line, `${label}: not sent (${error.message})`);
  }
}

function answered(result) {
  const label = pending.get(result.correlation);
  if (label === undefined) return; // another screen's, or a floor command
  pending.delete(result.correlation);
  const line = $("cmd-result");
  line.dataset.state = result.ok ? "ok" : "refused";
  setText(line, result.ok ? `${label}: done` : `${label}: refused: ${result.error}`);
}

$("call-floor").addEventListener("click", () => {
  const name = $("clock-name").value.trim() || view?.dealer?.name || null;
  command({ action: "call_floor", ...(name ? { name } : {}) }, "Call the floor");
});
$("clock-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("clock-name").value.trim();
  if (!name) {
    setText($("cmd-result"), "Clock in: type your name first");
    $("clock-name").focus();
    return;
  }
  command({ action: "clock_in", name }, `Clock in ${name}`);
});
$("clock-out").addEventListener("click", () => {
  const name = view?.dealer?.name;
  command({ action: "clock_out", ...(name ? { name } : {}) }, `Clock out ${name ?? ""}`.trim());
});
// Times on screen ("3 min") move on without a message.
setInterval(schedule, 1000);
