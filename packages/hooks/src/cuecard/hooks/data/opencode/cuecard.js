// cuecard for OpenCode: project knowledge delivered at the action it applies to.
// Installed by `cuecard install opencode` into .opencode/plugins/ (or ~/.config/opencode/plugins/).
//
// This plugin holds no logic of its own: at each hook it runs `cuecard-hook opencode <event>`
// (without a shell, the payload as JSON on stdin, output bounded, 10 s timeout) and appends what
// cuecard delivers to the TOOL RESULT (a prompt's memories: to the user's message), leaving the
// system prompt and its cache alone. It imports nothing but Node's own modules (not
// @opencode-ai/plugin).
//
// Events and payloads it sends (Claude Code's field names, which cuecard-hook reads for every
// harness):
//   (start)                SessionStart {source: "startup"} once, when OpenCode loads the plugin
//                          (no session yet): the day's maintenance, when it is due, detached.
//                          Not awaited; dispose waits for it.
//   chat.message           UserPromptSubmit {hook_event_name, session_id, cwd, prompt}; its
//                          additionalContext is added to the user's message as a synthetic text
//                          part (stored with the message, so the model reads it in its first
//                          answer and in every later request of the session, at the same place).
//   tool.execute.before    PreToolUse
//                            {hook_event_name, session_id, cwd, tool_name, tool_input, tool_use_id}
//                          Its additionalContext is kept for this call.
//   tool.execute.after     PostToolUse {…, tool_input, tool_response: {title, output, metadata}};
//                          the kept text and PostToolUse's additionalContext (an inbox proposal's
//                          ingestion result) are appended to output.output.
//   experimental.text.complete  the end of a turn, while the session is still running: when the
//                          assistant message that ends with this text called no tool, Stop
//                          {session_id, cwd, stop_hook_active}. A `reason` (turn checks or a
//                          request for a memory) is added to the session as a user message
//                          (client.session.prompt with noReply, a synthetic part) before the
//                          session loop looks for new messages, so the agent answers it in the
//                          same run, `opencode run` included. The next Stop of the session reports
//                          stop_hook_active until the user prompts again.
//   event session.compacted  SessionStart {source: "compact"} (a new delivery epoch).
//   event session.idle     Stop as above, only when no text ended the turn (so Stop did not run),
//                          and not after an error or an abort; a reason is sent as a new prompt
//                          (client.session.prompt). `opencode run` disposes the instance at idle:
//                          the plugin's dispose waits for that prompt to finish.
// OpenCode calls every exported function as a plugin, so the module exports the plugin alone.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const CUECARD_HOOK = "__CUECARD_HOOK__";
const TIMEOUT_MS = 10000;
const MAX_OUTPUT = 256 * 1024;

/**
 * The program to run for `command`: itself when it is an absolute path; for a bare name, the
 * first executable file of that name in a PATH entry that is an absolute path; else null. An
 * empty or relative PATH entry (`/usr/bin:`, `node_modules/.bin`) would find a `cuecard-hook` the
 * repository itself holds: that one never runs.
 */
function resolveCommand(command) {
  if (isAbsolute(command)) return command;
  if (command.includes("/") || command.includes("\\")) return null;
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, command);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there, or not executable: the next entry
    }
  }
  return null;
}

/** Run `cuecard-hook opencode <event>`; resolves to its JSON answer, or null. Never rejects. */
function runHook(event, payload, { command = CUECARD_HOOK, timeout = TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    const program = resolveCommand(command);
    if (program === null) {
      resolve(null);
      return;
    }
    let child;
    try {
      child = spawn(program, ["opencode", event], {
        stdio: ["pipe", "pipe", "ignore"],
        shell: false,
        windowsHide: true,
      });
    } catch {
      resolve(null);
      return;
    }
    const chunks = [];
    let size = 0;
    let done = false;
    const finish = (value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      child.kill();
      finish(null);
    }, timeout);
    child.on("error", () => finish(null));
    child.stdout.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) {
        child.kill();
        finish(null);
        return;
      }
      chunks.push(chunk);
    });
    child.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8").trim();
      if (!text) return finish(null);
      try {
        const value = JSON.parse(text);
        finish(value && typeof value === "object" ? value : null);
      } catch {
        finish(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ hook_event_name: event, ...payload }));
  });
}

function contextOf(answer) {
  const text = answer?.hookSpecificOutput?.additionalContext;
  return typeof text === "string" && text ? text : "";
}

/**
 * A synthetic text part holding `text`, for the user message `message`. Its id extends the id of
 * the message's last part, so that it sorts right after the prompt (OpenCode orders parts by id).
 */
function contextPart(message, parts, text) {
  const ids = parts.map((p) => p?.id).filter((id) => typeof id === "string");
  const last = ids.filter((id) => id.startsWith("prt")).sort().pop() ?? "prt_";
  return {
    id: `${last}cuecard`,
    sessionID: message.sessionID,
    messageID: message.id,
    type: "text",
    text,
    synthetic: true,
  };
}

function promptText(parts) {
  return (Array.isArray(parts) ? parts : [])
    .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

/** The plugin. `options.command` overrides the cuecard-hook path (tests). */
export const CuecardPlugin = async ({ directory, worktree, client } = {}, options = {}) => {
  const cwd = directory || worktree || process.cwd();
  const run = (event, payload) => runHook(event, { cwd, ...payload }, options);
  const kept = new Map(); // callID -> text to append to the result
  const asked = new Set(); // sessions kept working by a Stop reason since the user's last prompt
  const stopped = new Set(); // sessions whose turn-ending text already ran Stop
  const failed = new Set(); // sessions whose turn ended in an error or an abort
  const pending = new Set(); // work dispose waits for: the start's SessionStart, Stop at idle

  const reasonOf = (answer) => (typeof answer?.reason === "string" ? answer.reason : "");

  /** Run Stop for the session; returns its reason ("" for none). */
  const stop = async (session_id) => {
    const reason = reasonOf(await run("Stop", { session_id, stop_hook_active: asked.has(session_id) }));
    if (reason) asked.add(session_id);
    return reason;
  };

  /** Whether the assistant message holds a tool call (then the turn goes on). */
  const callsTools = async (sessionID, messageID) => {
    try {
      const found = await client.session.message({ path: { id: sessionID, messageID } });
      const parts = found?.data?.parts;
      return !Array.isArray(parts) || parts.some((p) => p && p.type === "tool");
    } catch {
      return true; // cannot tell: leave it to session.idle
    }
  };

  const atIdle = async (session_id) => {
    const reason = await stop(session_id);
    if (!reason || !client?.session?.prompt) return;
    try {
      await client.session.prompt({
        path: { id: session_id },
        body: { parts: [{ type: "text", text: reason, synthetic: true }] },
      });
    } catch {
      // never block the host
    }
  };

  const starting = run("SessionStart", { source: "startup" });
  pending.add(starting);
  starting.finally(() => pending.delete(starting));

  return {
    "chat.message": async (input, output) => {
      const session_id = input?.sessionID;
      const prompt = promptText(output?.parts);
      if (!session_id || !prompt) return; // cuecard's own (synthetic) message, or no text
      asked.delete(session_id);
      failed.delete(session_id);
      const text = contextOf(await run("UserPromptSubmit", { session_id, prompt }));
      const message = output?.message;
      if (!text || !message?.id || !Array.isArray(output.parts)) return;
      output.parts.push(contextPart({ sessionID: session_id, ...message }, output.parts, text));
    },
    "tool.execute.before": async (input, output) => {
      const session_id = input?.sessionID || "";
      stopped.delete(session_id);
      const text = contextOf(
        await run("PreToolUse", {
          session_id,
          tool_name: input?.tool,
          tool_input: output?.args ?? {},
          tool_use_id: input?.callID,
        }),
      );
      if (text && input?.callID) kept.set(input.callID, text);
    },
    "tool.execute.after": async (input, output) => {
      const session_id = input?.sessionID || "";
      const answer = await run("PostToolUse", {
        session_id,
        tool_name: input?.tool,
        tool_input: input?.args ?? {},
        tool_use_id: input?.callID,
        tool_response: {
          title: output?.title ?? "",
          output: typeof output?.output === "string" ? output.output.slice(0, 2000) : "",
          metadata: output?.metadata ?? {},
        },
      });
      const texts = [kept.get(input?.callID), contextOf(answer)].filter(Boolean);
      kept.delete(input?.callID);
      if (texts.length && output) {
        const before = typeof output.output === "string" ? output.output : "";
        output.output = `${before}\n\n${texts.join("\n\n")}`;
      }
    },
    "experimental.text.complete": async (input) => {
      const session_id = input?.sessionID || "";
      if (!session_id || !input?.messageID || !client?.session?.prompt) return;
      if (await callsTools(session_id, input.messageID)) return;
      stopped.add(session_id);
      const reason = await stop(session_id);
      if (!reason) return;
      try {
        await client.session.prompt({
          path: { id: session_id },
          body: { noReply: true, parts: [{ type: "text", text: reason, synthetic: true }] },
        });
      } catch {
        // never block the host
      }
    },
    event: async ({ event } = {}) => {
      const session_id = event?.properties?.sessionID || "";
      if (!session_id) return;
      if (event.type === "session.compacted") {
        await run("SessionStart", { session_id, source: "compact" });
      } else if (event.type === "session.error") {
        failed.add(session_id);
      } else if (event.type === "session.idle") {
        const skip = stopped.has(session_id) || failed.has(session_id);
        stopped.delete(session_id);
        failed.delete(session_id);
        if (skip) return;
        const work = atIdle(session_id);
        pending.add(work);
        await work.finally(() => pending.delete(work));
      }
    },
    dispose: async () => {
      await Promise.allSettled([...pending]);
    },
  };
};

CuecardPlugin.runHook = runHook;
