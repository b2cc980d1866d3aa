// Logging a display page in to the broker, and keeping it connected.
//
// The server serves no password: a page takes its login from the address's fragment
// (#user=dealer.7&pass=...&table=7&room=main; a browser never sends the fragment to the server),
// keeps it in this browser's localStorage and takes it out of the address bar, so a kiosk set
// up once stays logged in across reboots (docs/displays.md). Without either, a small form asks.
// mqtt.js (loaded before this module as /static/vendor/mqtt.min.js, the global `mqtt`) connects
// with MQTT 5 to ws(s)://<this host>/mqtt, which tablectl web relays to the broker: the broker
// checks the login and its ACL decides what the page may read.

const NAME = /^[A-Za-z0-9_-]{1,32}$/; // room and table names (docs/mqtt.md)
const USER = /^[A-Za-z0-9_.-]{1,80}$/; // mkusers' user names: role.table, floor.name
const FIELDS = ["user", "pass", "table", "room"];
const RECONNECT_MS = 1000;
// The page's session outlives a lost connection by this much (docs/displays.md, "Missed while
// away"): the broker queues the messages of the queued topics below for it meanwhile.
export const SESSION_EXPIRY_S = 900;
// What happened (each alert, event and command answer): queued at QoS 1 while the page is away.
// The snapshots (status, views, summary, hands) are QoS 0: only the newest matters, and the
// broker sends it again, retained, when the page subscribes on reconnecting.
const QUEUED_LEAVES = new Set(["alerts", "events", "cmd_result"]);

// MQTT 5 DISCONNECT, reason 0 (normal), properties: Session Expiry Interval (0x11) = 0.
const DISCONNECT_ENDING_SESSION = new Uint8Array([0xe0, 0x07, 0x00, 0x05, 0x11, 0x00, 0x00, 0x00, 0x00]);

/** The subscription QoS of a topic filter: 1 for what must not be missed, 0 for snapshots. */
export function subscriptionQos(filter) {
  return QUEUED_LEAVES.has(filter.slice(filter.lastIndexOf("/") + 1)) ? 1 : 0;
}

/** The topic prefix of a table: cardroom/<room>/table/<table>/ */
export function tablePrefix(login) {
  return `cardroom/${login.room}/table/${login.table}/`;
}

/** A login from a fragment's text ("user=...&pass=..."), or null; bad names are refused. */
export function parseLogin(fragment) {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  if (!params.has("user") || !params.has("pass")) return null;
  const login = Object.fromEntries(FIELDS.map((key) => [key, params.get(key) ?? ""]));
  login.room = login.room || "main";
  return checkLogin(login);
}

function checkLogin(login) {
  if (!login || !USER.test(login.user ?? "") || typeof login.pass !== "string" || !login.pass) return null;
  if (!NAME.test(login.room ?? "")) return null;
  if (login.table && !NAME.test(login.table)) return null;
  return { user: login.user, pass: login.pass, table: login.table || "", room: login.room };
}

// One login per page (a desktop may open /dealer and /table as different users).
function storageKey() {
  return `tablectl.login:${location.pathname}`;
}

export function storedLogin() {
  try {
    return checkLogin(JSON.parse(localStorage.getItem(storageKey()) ?? "null"));
  } catch {
    return null; // unreadable storage is no login: the form asks
  }
}

export function saveLogin(login) {
  localStorage.setItem(storageKey(), JSON.stringify(login));
}

export function forgetLogin() {
  localStorage.removeItem(storageKey());
}

/** The fragment's login (saved, and taken out of the address bar and its history entry), else the
 * saved one, else null. */
export function takeLogin() {
  const fromFragment = location.hash ? parseLogin(location.hash) : null;
  if (location.hash && new URLSearchParams(location.hash.slice(1)).has("pass")) {
    // Even a refused fragment leaves the address bar: a password must not stay on the screen.
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  if (fromFragment) {
    saveLogin(fromFragment);
    return fromFragment;
  }
  return storedLogin();
}

export function brokerUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/mqtt`;
}

/**
 * Log the page in and keep it connected.
 *
 * options.topics(login): the topic filters to subscribe to on every connection (the broker may
 *   have been restarted without the page's session, so they are never assumed kept), each at
 *   subscriptionQos(filter);
 * options.onMessage(topic, text, packet): each message, its payload as text;
 * options.onState(state, detail): "login", "connecting", "connected", "reconnecting",
 *   "offline" (with the relay's reason, e.g. "broker unreachable at 127.0.0.1:1883"),
 *   "refused" (the broker refused the login: the form is shown again);
 * options.form: the element the login form goes in (hidden while connected);
 * options.needsTable: the form asks for a table (the dealer's and the table's display).
 * Returns { client(), logOut() }.
 */
export function connectPage(options) {
  let client = null;
  let socket = null; // the websocket of the current connection
  const state = (name, detail = "") => options.onState?.(name, detail);

  let currentLogin = null;
  const start = (login) => {
    currentLogin = login;
    hideForm(options.form);
    state("connecting");
    let closeReason = "";
    // One session per page shown: kept across reconnects (the broker queues the alerts missed
    // meanwhile), never shared by two tabs (a tab duplicated with its sessionStorage would
    // take the other's session over, and each would throw the other off in turn).
    client = mqtt.connect(brokerUrl(), {
      protocolVersion: 5,
      clean: false,
      properties: { sessionExpiryInterval: SESSION_EXPIRY_S },
      username: login.user,
      password: login.pass,
      clientId: `tablectl-${location.pathname.replace(/\W/g, "") || "index"}-${randomId()}`,
      keepalive: 20,
      reconnectPeriod: RECONNECT_MS,
      connectTimeout: 5000,
      resubscribe: false, // subscribed again in "connect" below, on every connection
      createWebsocket: (url, protocols) => {
        socket = new WebSocket(url, protocols);
        socket.addEventListener("close", (event) => {
          closeReason = event.reason || `websocket closed (${event.code})`;
        });
        return socket;
      },
    });
    client.on("connect", () => {
      closeReason = "";
      const topics = Object.fromEntries(options.topics(login).map((t) => [t, { qos: subscriptionQos(t) }]));
      client.subscribe(topics, (error) => {
        if (error) state("offline", `subscribe refused: ${error.message}`);
      });
      state("connected", login.user);
    });
    client.on("reconnect", () => state("reconnecting", closeReason));
    client.on("offline", () => state("offline", closeReason));
    client.on("message", (topic, payload, packet) => {
      options.onMessage?.(topic, new TextDecoder().decode(payload), packet);
    });
    client.on("error", (error) => {
      if (typeof error.code === "number" && error.code >= 128) {
        // A refused CONNECT (134 bad user name or password, 135 not authorized): mqtt.js stops
        // retrying; the form asks again, with the user filled in.
        client.end(true);
        client = null;
        currentLogin = null; // a page shown again asks, as it does now
        state("refused", error.message);
        showForm(options.form, options.needsTable, login, error.message, start);
      }
    });
  };

  // A page closed or reloaded is not away: its session ends now rather than queueing for nobody
  // until it expires (a page killed outright leaves it to the expiry). The DISCONNECT goes
  // straight onto the websocket: mqtt.js's end() writes through its stream a turn later, after
  // the page has torn the socket down (tests/adapters/web/test_browser.py saw the session kept).
  // Best effort: a browser tearing the page down may still drop the socket before the bytes
  // leave (the session then expires). Nothing reconnects behind a hidden page; one restored from
  // the back/forward cache connects again.
  let hiddenLogin = null;
  addEventListener("pagehide", () => {
    if (!client) return;
    if (socket?.readyState === WebSocket.OPEN && client.connected) socket.send(DISCONNECT_ENDING_SESSION);
    client.end(true);
    client = null;
    hiddenLogin = currentLogin;
    state("offline", "page hidden");
  });
  addEventListener("pageshow", (event) => {
    if (event.persisted && hiddenLogin) start(hiddenLogin);
    hiddenLogin = null;
  });
  const login = takeLogin();
  if (login) start(login);
  else {
    state("login");
    showForm(options.form, options.needsTable, null, "", start);
  }
  return {
    client: () => client,
    logOut: () => {
      forgetLogin();
      client?.end(true);
      client = null;
      currentLogin = null; // a page shown again from the back/forward cache stays logged out
      state("login");
      showForm(options.form, options.needsTable, null, "", start);
    },
  };
}

function randomId() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function hideForm(container) {
  if (container) {
    container.hidden = true;
    container.replaceChildren();
  }
}

// The form is built with DOM calls, never innerHTML: nothing typed becomes markup.
function showForm(container, needsTable, previous, message, onLogin) {
  if (!container) return;
  const form = document.createElement("form");
  form.className = "login";
  const field = (name, label, type, value) => {
    const row = document.createElement("label");
    row.textContent = label;
    const input = document.createElement("input");
    input.name = name;
    input.type = type;
    input.value = value ?? "";
    input.required = name !== "table" || needsTable;
    input.autocomplete = name === "pass" ? "current-password" : "off";
    row.append(input);
    form.append(row);
  };
  field("user", "User", "text", previous?.user);
  field("pass", "Password", "password", "");
  if (needsTable) field("table", "Table", "text", previous?.table);
  field("room", "Room", "text", previous?.room ?? "main");
  const problem = document.createElement("p");
  problem.className = "problem";
  problem.textContent = message;
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = "Log in";
  form.append(problem, button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const login = checkLogin(Object.fromEntries(FIELDS.map((key) => [key, String(data.get(key) ?? "")])));
    if (!login || (needsTable && !login.table)) {
      problem.textContent = "Names are 1 to 32 letters, digits, _ or - (users may have a dot).";
      return;
    }
    saveLogin(login);
    onLogin(login);
  });
  container.replaceChildren(form);
  container.hidden = false;
}
