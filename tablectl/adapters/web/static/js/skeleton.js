// The skeleton of every display page: logged in through connect.js, it shows the connection
// state and the raw retained messages it reads. The real pages replace the raw view.
import { connectPage, tablePrefix } from "./connect.js";

// What each page reads (docs/mqtt.md; the broker's ACL lets each role read exactly these).
const TOPICS = {
  dealer: (login) => ["status", "public", "dealer", "events", "alerts"].map((t) => tablePrefix(login) + t),
  table: (login) => ["status", "public"].map((t) => tablePrefix(login) + t),
  floor: (login) => [`cardroom/${login.room}/table/+/status`, `cardroom/${login.room}/table/+/floor`],
};

const page = document.body.dataset.page;
const connection = document.getElementById("connection");
const shown = new Map(); // topic -> its element

let connects = 0; // the tests see a reconnection by this count

function showState(state, detail) {
  if (state === "connected") connection.dataset.connects = String(++connects);
  connection.dataset.state = state;
  connection.textContent = detail ? `${state}: ${detail}` : state;
}

function showMessage(topic, text, packet) {
  let element = shown.get(topic);
  if (!element) {
    element = document.createElement("section");
    element.className = "message";
    const heading = document.createElement("h2");
    heading.textContent = topic;
    const body = document.createElement("pre");
    element.append(heading, body);
    element.dataset.topic = topic;
    document.getElementById("messages").append(element);
    shown.set(topic, element);
  }
  let seq = "";
  try {
    const data = JSON.parse(text);
    seq = `seq ${data.seq} · epoch ${data.epoch}`;
    text = JSON.stringify(data, null, 1);
  } catch {
    // not JSON (the bridge's 1 or 0): shown as it came
  }
  element.dataset.seq = seq;
  element.querySelector("h2").textContent = `${topic}${packet.retain ? " (retained)" : ""} ${seq}`;
  element.querySelector("pre").textContent = text;
}

const session = connectPage({
  topics: TOPICS[page],
  onMessage: showMessage,
  onState: showState,
  form: document.getElementById("login"),
  needsTable: page !== "floor",
});
document.getElementById("log-out")?.addEventListener("click", () => session.logOut());
