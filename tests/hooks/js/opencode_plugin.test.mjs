// The installed OpenCode plugin against the real cuecard-hook and a real repository.
// Run by tests/hooks/test_opencode_plugin.py with CUECARD_PLUGIN (the installed cuecard.js) and
// CUECARD_REPO (an opted-in git repository with the test memories) in the environment.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

const repo = process.env.CUECARD_REPO;
const { CuecardPlugin } = await import(pathToFileURL(process.env.CUECARD_PLUGIN).href);
const TRAP = "charge() is not idempotent";

function fakeClient(parts = null) {
  const sent = [];
  const session = { prompt: async (request) => sent.push(request) };
  // session.message: the assistant message's parts, as OpenCode's server returns them
  if (parts) session.message = async () => ({ data: { info: {}, parts } });
  return { sent, session };
}

async function failThenFix(hooks, sessionID) {
  await hooks["chat.message"]({ sessionID }, { parts: [{ type: "text", text: "make the tests pass" }] });
  const fail = { title: "npm test", output: "1 failing", metadata: { exit: 1 } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID, callID: `${sessionID}-1` }, { args: { command: "npm test" } });
  await hooks["tool.execute.after"]({ tool: "bash", sessionID, callID: `${sessionID}-1`, args: { command: "npm test" } }, fail);
  await toolCall(hooks, sessionID, `${sessionID}-2`, "edit", { filePath: `${repo}/src/billing/charge.py`, oldString: "x", newString: "y" });
  const pass = { title: "npm test", output: "3 passing", metadata: { exit: 0 } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID, callID: `${sessionID}-3` }, { args: { command: "npm test" } });
  await hooks["tool.execute.after"]({ tool: "bash", sessionID, callID: `${sessionID}-3`, args: { command: "npm test" } }, pass);
}

async function toolCall(hooks, sessionID, callID, tool, args, result = "ok") {
  const before = { args };
  await hooks["tool.execute.before"]({ tool, sessionID, callID }, before);
  const output = { title: tool, output: result, metadata: {} };
  await hooks["tool.execute.after"]({ tool, sessionID, callID, args: before.args }, output);
  return output;
}

test("the module exports the plugin alone", async () => {
  const module = await import(pathToFileURL(process.env.CUECARD_PLUGIN).href);
  assert.deepEqual(Object.keys(module), ["CuecardPlugin"]);
});

// First of the tests that load the plugin: the repository has never seen a session start.
test("the plugin's start claims the day's maintenance, and dispose waits for it", async () => {
  const marker = join(repo, ".cuecard", "local", "maintain.spawn");
  assert.equal(existsSync(marker), false);
  const hooks = await CuecardPlugin({ directory: repo, client: fakeClient() });
  await hooks.dispose();
  assert.equal(existsSync(marker), true);
});

test("a memory is appended to the tool result, once per session", async () => {
  const hooks = await CuecardPlugin({ directory: repo, client: fakeClient() });
  const edit = { filePath: `${repo}/src/billing/charge.py`, oldString: "order.total", newString: "order.amount" };
  const first = await toolCall(hooks, "oc-1", "call-1", "edit", edit, "Edit applied.");
  assert.ok(first.output.startsWith("Edit applied.\n\n<memory-data"), first.output);
  assert.ok(first.output.includes(TRAP));
  assert.ok(first.output.includes("advisory project knowledge"));
  const second = await toolCall(hooks, "oc-1", "call-2", "edit", edit, "Edit applied.");
  assert.equal(second.output, "Edit applied.");
  const other = await toolCall(hooks, "oc-2", "call-3", "edit", edit, "Edit applied.");
  assert.ok(other.output.includes(TRAP));
});

test("the prompt's memories join the user's message as a synthetic part, never the system prompt", async () => {
  const hooks = await CuecardPlugin({ directory: repo, client: fakeClient() });
  const prompt = { id: "prt_0a1", sessionID: "oc-3", messageID: "msg_1", type: "text", text: "Please deploy this to staging." };
  const output = { message: { id: "msg_1", sessionID: "oc-3", role: "user" }, parts: [prompt] };
  await hooks["chat.message"]({ sessionID: "oc-3", messageID: "msg_1" }, output);
  assert.equal(output.parts.length, 2);
  const [, added] = output.parts;
  assert.equal(added.type, "text");
  assert.equal(added.synthetic, true);
  assert.equal(added.messageID, "msg_1");
  assert.equal(added.sessionID, "oc-3");
  assert.ok(added.id > prompt.id && added.id.startsWith("prt_0a1"), added.id); // sorts right after
  assert.ok(added.text.startsWith("<memory-data"), added.text);
  assert.ok(added.text.includes("Deploy with make deploy-staging"), added.text);
  // delivered once: the next tool result does not repeat it
  const read = await toolCall(hooks, "oc-3", "call-4", "read", { filePath: `${repo}/docs/adr/0001-provider.md` }, "# One provider");
  assert.ok(!read.output.includes("Deploy with make deploy-staging"), read.output);
  assert.ok(read.output.includes("One payment provider until 2027"), read.output);
  // cuecard's own synthetic part is no prompt: a message of it alone runs nothing
  const again = { message: { id: "msg_2", sessionID: "oc-3" }, parts: [added] };
  await hooks["chat.message"]({ sessionID: "oc-3" }, again);
  assert.equal(again.parts.length, 1);
});

test("after a failure and a fix, the idle session is asked once for a memory", async () => {
  const client = fakeClient();
  const hooks = await CuecardPlugin({ directory: repo, client });
  await hooks["chat.message"]({ sessionID: "oc-4" }, { parts: [{ type: "text", text: "make the tests pass" }] });
  const fail = { title: "npm test", output: "1 failing", metadata: { exit: 1 } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "oc-4", callID: "c1" }, { args: { command: "npm test" } });
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "oc-4", callID: "c1", args: { command: "npm test" } }, fail);
  await toolCall(hooks, "oc-4", "c2", "edit", { filePath: `${repo}/src/billing/charge.py`, oldString: "x", newString: "y" });
  const pass = { title: "npm test", output: "3 passing", metadata: { exit: 0 } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "oc-4", callID: "c3" }, { args: { command: "npm test" } });
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "oc-4", callID: "c3", args: { command: "npm test" } }, pass);
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "oc-4" } } });
  assert.equal(client.sent.length, 1);
  assert.equal(client.sent[0].path.id, "oc-4");
  assert.match(client.sent[0].body.parts[0].text, /`npm test` failed, then succeeded after a change/);
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "oc-4" } } });
  assert.equal(client.sent.length, 1);
});

test("a compaction starts a new epoch", async () => {
  const hooks = await CuecardPlugin({ directory: repo, client: fakeClient() });
  const grep = { pattern: "charge_customer" };
  assert.ok((await toolCall(hooks, "oc-5", "g1", "grep", grep)).output.includes("charge_customer is deprecated"));
  assert.equal((await toolCall(hooks, "oc-5", "g2", "grep", grep)).output, "ok");
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "oc-5" } } });
  assert.ok((await toolCall(hooks, "oc-5", "g3", "grep", grep)).output.includes("charge_customer is deprecated"));
});

test("a missing or failing cuecard-hook never breaks the tool call", async () => {
  assert.equal(await CuecardPlugin.runHook("PreToolUse", {}, { command: "/nonexistent/cuecard-hook" }), null);
  const hooks = await CuecardPlugin({ directory: repo }, { command: "/nonexistent/cuecard-hook" });
  const out = await toolCall(hooks, "oc-6", "x1", "edit", { filePath: "a", oldString: "a", newString: "b" }, "done");
  assert.equal(out.output, "done");
  assert.equal(await CuecardPlugin.runHook("PreToolUse", {}, { command: "false" }), null);
});

test("the turn's last text runs Stop while the session runs: the ask is a synthetic user message", async () => {
  const client = fakeClient([{ type: "step-start" }, { type: "text", text: "Fixed." }]);
  const hooks = await CuecardPlugin({ directory: repo, client });
  await failThenFix(hooks, "oc-7");
  await hooks["experimental.text.complete"]({ sessionID: "oc-7", messageID: "m1", partID: "p1" }, { text: "Fixed." });
  assert.equal(client.sent.length, 1);
  const [request] = client.sent;
  assert.equal(request.path.id, "oc-7");
  assert.equal(request.body.noReply, true); // the running session loop picks it up
  assert.equal(request.body.parts[0].synthetic, true);
  assert.match(request.body.parts[0].text, /`npm test` failed, then succeeded after a change/);
  // cuecard's own message is no user prompt: nothing is sent as UserPromptSubmit for it
  await hooks["chat.message"]({ sessionID: "oc-7" }, { parts: request.body.parts });
  // the idle that follows runs no second Stop; the next text reports stop_hook_active
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "oc-7" } } });
  await hooks["experimental.text.complete"]({ sessionID: "oc-7", messageID: "m2", partID: "p2" }, { text: "Saved." });
  assert.equal(client.sent.length, 1);
});

test("a text in a message that calls tools is no end of turn", async () => {
  const client = fakeClient([{ type: "text", text: "Let me check." }, { type: "tool", tool: "bash" }]);
  const hooks = await CuecardPlugin({ directory: repo, client });
  await failThenFix(hooks, "oc-8");
  await hooks["experimental.text.complete"]({ sessionID: "oc-8", messageID: "m1", partID: "p1" }, { text: "Let me check." });
  assert.equal(client.sent.length, 0);
  // the idle then asks, as a new prompt, and dispose waits for it
  let finish;
  client.session.prompt = (request) => new Promise((resolve) => { finish = () => resolve(client.sent.push(request)); });
  const idle = hooks.event({ event: { type: "session.idle", properties: { sessionID: "oc-8" } } });
  let disposed = false;
  const disposing = hooks.dispose().then(() => { disposed = true; });
  while (!finish) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(disposed, false);
  finish();
  await Promise.all([idle, disposing]);
  assert.equal(disposed, true);
  assert.equal(client.sent.length, 1);
  assert.equal(client.sent[0].body.noReply, undefined);
});

test("no Stop after an error or an abort", async () => {
  const client = fakeClient();
  const hooks = await CuecardPlugin({ directory: repo, client });
  await failThenFix(hooks, "oc-9");
  await hooks.event({ event: { type: "session.error", properties: { sessionID: "oc-9" } } });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "oc-9" } } });
  assert.equal(client.sent.length, 0);
});
