// The table display (/table): the public view of one table around an oval, for the players: seats
// with names, stacks, bets, the button and the blinds, who is to act; the board, the pots, the last
// action; at the showdown the hands shown, the winning hand in words and the chips pushed. The
// public view holds a hand's cards only once they are shown (tablectl.views.public): the backs of
// the cards a player holds are drawn from their count alone.
import { Follower } from "./follower.js";
import {
  cardEl, cardsEl, chips, el, gameText, rawPanel, setText, startDisplay, statusText, tablePrefix, topicParts,
} from "./display.js";

const $ = (id) => document.getElementById(id);
const follower = new Follower();
const raw = rawPanel($("messages"));
let view = null;
let status = null;
let frame = 0;
let seatEls = new Map(); // seat number -> its parts, built once per table size

startDisplay({
  needsTable: true,
  topics: (login) => ["status", "public"].map((t) => tablePrefix(login) + t),
  onMessage(topic, data, text, packet) {
    raw(topic, text, packet, data);
    if (!data) return;
    if (topicParts(topic).leaf === "status") status = data;
    else if (follower.accept(topic, data) === "new") view = data.state;
    else return;
    if (!frame) frame = requestAnimationFrame(render);
  },
});

function buildSeats(count) {
  const box = $("seats");
  box.replaceChildren();
  seatEls = new Map();
  for (let n = 1; n <= count; n += 1) {
    // Seat 1 to the dealer's left (bottom right), round the oval clockwise as seen on screen.
    const angle = Math.PI / 2 - (2 * Math.PI * n) / (count + 1);
    const seat = el("div", "seat");
    seat.dataset.seat = String(n);
    seat.style.left = `${50 + 46 * Math.cos(angle)}%`;
    seat.style.top = `${50 + 44 * Math.sin(angle)}%`;
    const parts = {
      seat,
      number: el("span", "number", String(n)),
      name: el("span", "name"),
      stack: el("span", "stack"),
      cards: el("span", "held"),
      badges: el("span", "badges"),
      // Draw games: a line of its own, since a long name and the blind badges fill the head.
      drew: el("span", "badge drew"),
      bet: el("span", "bet"),
    };
    const head = el("div", "head");
    head.append(parts.number, parts.name, parts.badges);
    seat.append(head, parts.stack, parts.drew, parts.cards, parts.bet);
    box.append(seat);
    seatEls.set(n, parts);
  }
}

function render() {
  frame = 0;
  const offline = statusText(status);
  $("offline").hidden = !offline.offline;
  setText($("offline"), offline.offline ? `TABLE ${offline.text}` : "");
  document.body.classList.toggle("table-offline", offline.offline);
  if (!view) return;
  setText(
    $("title"),
    `Table ${view.table} · ${gameText(view)}` +
      (view.hand ? ` · hand ${view.hand}` : ""),
  );
  if (seatEls.size !== view.seats.length) buildSeats(view.seats.length);
  const result = view.result;
  const shownAtEnd = result?.shown ?? {};
  for (const entry of view.seats) {
    const parts = seatEls.get(entry.seat);
    const seat = parts.seat;
    seat.classList.toggle("empty", Boolean(entry.empty));
    seat.classList.toggle("to-act", view.to_act === entry.seat);
    seat.classList.toggle("folded", entry.in_hand === false);
    seat.classList.toggle("all-in", Boolean(entry.all_in));
    seat.classList.toggle("sitting-out", Boolean(entry.sitting_out));
    const won = result?.pushed?.find((p) => p.seat === entry.seat);
    seat.classList.toggle("winner", Boolean(won));
    if (entry.empty) {
      setText(parts.name, "open seat");
      setText(parts.stack, "");
      setText(parts.bet, "");
      parts.cards.replaceChildren();
      parts.badges.replaceChildren();
      setText(parts.drew, "");
      continue;
    }
    setText(parts.name, entry.name);
    setText(parts.stack, entry.all_in ? "ALL IN" : chips(entry.stack));
    setText(parts.bet, entry.bet ? chips(entry.bet) : won ? `+${chips(won.chips)}` : "");
    parts.bet.classList.toggle("push", !entry.bet && Boolean(won));
    const badges = [];
    if (view.button === entry.seat) badges.push(el("span", "badge button", "D"));
    if (view.blind_seats?.small === entry.seat) badges.push(el("span", "badge blind", "SB"));
    if (view.blind_seats?.big === entry.seat) badges.push(el("span", "badge blind", "BB"));
    if (entry.sitting_out) badges.push(el("span", "badge out", "out"));
    parts.badges.replaceChildren(...badges);
    // Draw games: how many cards the seat drew at each draw is public, the cards are not.
    setText(parts.drew, entry.drew?.length ? `drew ${entry.drew.join(" · ")}` : "");
    const shown = entry.shown ?? shownAtEnd[String(entry.seat)] ?? null;
    const cards = [];
    if (shown) for (const card of shown) cards.push(cardEl(card));
    else {
      // Stud: the up cards lie face up for everyone; the others are backs.
      const up = entry.up ?? [];
      for (let i = 0; i < (entry.cards_held ?? 0) - up.length; i += 1) cards.push(cardEl("??"));
      for (const card of up) cards.push(cardEl(card));
    }
    parts.cards.replaceChildren(...cards);
    parts.cards.classList.toggle("shown", Boolean(shown));
    // Five cards or more (draw, stud): the backs overlap as a closed hand does, to fit on a line.
    parts.cards.classList.toggle("fan", cards.length >= 5);
  }
  const board = view.board ?? result?.board ?? [];
  $("board").replaceChildren(cardsEl(board));
  setText($("pot"), view.pot !== undefined ? `Pot ${chips(view.pot)}` : "");
  const pots = view.pots ?? [];
  $("side-pots").replaceChildren(
    ...(pots.length > 1 ? pots.map((p, i) => el("span", "side-pot", `${i ? `Side pot ${i}` : "Main pot"} ${chips(p.amount)}`)) : []),
  );
  setText($("street"), view.hand ? `${view.street ?? ""}${view.to_act ? ` · seat ${view.to_act} to act` : ""}` : "Between hands");
  setText($("last-action"), view.last_action?.text ?? "");
  renderResult(result);
}

function name(seat) {
  const entry = view.seats.find((s) => s.seat === seat);
  return entry?.name ? `${entry.name} (seat ${seat})` : `Seat ${seat}`;
}

function renderResult(result) {
  const box = $("result");
  box.hidden = !result;
  if (!result) return;
  const rows = result.awards.map((award) => {
    const row = el("div", "award");
    const half = award.half === "high" ? " (high)" : award.half === "low" ? " (low)" : "";
    row.append(
      el("span", "who", award.seats.map(name).join(" and ")),
      el("span", "what", ` wins ${award.pot_name}${half}, ${chips(award.amount)}`),
    );
    if (award.hand) row.append(el("span", "hand-name", ` with ${award.hand}`));
    return row;
  });
  const heading = el("h2", "", `Hand ${result.hand}`);
  const pushed = el(
    "p",
    "pushed",
    `Chips pushed: ${result.pushed.map((p) => `${name(p.seat)} ${chips(p.chips)}`).join(", ")}`,
  );
  box.replaceChildren(heading, ...rows, pushed);
}
