// The displays' side of the table's feed, as tablectl.adapters.mqtt.Follower does it (docs/mqtt.md):
// drop the repeats, notice the gaps. A page hands each message (its JSON) to accept(topic, payload)
// and shows what it answers "new" or "gap"; after a gap it reads the retained dealer or floor
// snapshot and shows rulingsMissed(snapshot). A new epoch (the table restarted) starts afresh.
//
// The same rules line for line as the Python class, and tested against the same cases
// (tests/adapters/web/follower_cases.json, read by both test suites): keep the two together.

/** Python's int() of a JSON value as the Follower reads seq and prev. */
function pyInt(value) {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) return parseInt(value, 10);
  throw new TypeError(`not a whole number: ${JSON.stringify(value)}`);
}

function field(payload, key, fallback) {
  return Object.prototype.hasOwnProperty.call(payload, key) ? payload[key] : fallback;
}

export class Follower {
  constructor() {
    this.epoch = null;
    this.last = new Map(); // topic -> the highest seq taken on it
    this.seenEvents = new Set(); // seqs of the events and alerts (and rulings) shown
  }

  /** "new", "repeat", "stale" or "gap" (see tablectl.adapters.mqtt.Follower.accept). */
  accept(topic, payload) {
    const epoch = field(payload, "epoch", null);
    const seq = pyInt(field(payload, "seq", 0));
    if (epoch !== this.epoch) {
      this.epoch = typeof epoch === "string" ? epoch : null;
      this.last.clear();
      this.seenEvents.clear();
    }
    const kind = field(payload, "type", null);
    if (kind === "event" || kind === "alert") {
      if (this.seenEvents.has(seq)) return "repeat";
      this.seenEvents.add(seq);
      const expected = this.last.get(topic);
      this.last.set(topic, Math.max(seq, expected ?? 0));
      const prev = pyInt(field(payload, "prev", 0));
      if (expected !== undefined && prev > expected) return "gap";
      return "new";
    }
    const last = this.last.get(topic);
    if (last !== undefined && seq < last) return "stale";
    if (last !== undefined && seq === last) return "repeat";
    this.last.set(topic, seq);
    return "new";
  }

  /** The rulings of a dealer or floor snapshot that this display has not shown yet. */
  rulingsMissed(snapshot) {
    const state = field(snapshot, "state", null) || {};
    const missed = [];
    for (const ruling of field(state, "rulings", null) || []) {
      if (ruling === null || typeof ruling !== "object") continue;
      let seq = field(ruling, "seq", null);
      if (typeof seq === "boolean") seq = seq ? 1 : 0; // Python: a bool is an int
      if (Number.isInteger(seq) && !this.seenEvents.has(seq)) {
        this.seenEvents.add(seq);
        missed.push({ ...ruling });
      }
    }
    return missed;
  }
}
