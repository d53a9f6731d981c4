/**
 * One `ask_<agent>` tool per agent of the project. The answer comes back as text; while the agent
 * streams, each fragment is also sent as a progress notification when the client asked for
 * progress (sent a progressToken), so a client can show an `llm` agent's answer as it grows.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import type { AgentInfo, ChatMessage } from "../../domain/agents/types.js";
import type { McpMeteredRun, McpServerDeps } from "../deps.js";
import type { ChatOutcome } from "../../metrics/chat-metrics.js";
import { agentToolNames } from "../tool-names.js";
import { errorResult, failureMessage, textResult } from "./results.js";

const Message = z.object({
  role: z.enum(["system", "user", "assistant"]).describe("Who said it."),
  content: z.string().describe("What was said."),
});

const AskInput = {
  question: z.string().min(1).optional().describe("The question or instruction for the agent. Give this, or messages."),
  messages: z
    .array(Message)
    .min(1)
    .max(200)
    .optional()
    .describe(
      "A whole conversation, oldest first, ending with the user's message. Give this instead of question for multi-turn use.",
    ),
};

function describe(agent: AgentInfo): string {
  const what = agent.description.trim().replace(/\.+$/, "") || `the ${agent.kind} agent ${agent.id}`;
  return `Ask the agent "${agent.id}" (${agent.kind}; model ${agent.modelId}): ${what}. Returns the agent's answer as text.`;
}

export function registerAgentTools(server: McpServer, deps: McpServerDeps, reservedNames: string[]): void {
  const { agents, principal } = deps;
  // An embeddings agent cannot answer a question: it is not offered as a tool.
  const list = agents.list(principal.projectId).filter((a) => !a.embeddings);
  const names = agentToolNames(
    list.map((a) => a.id),
    reservedNames,
  );
  for (const info of list) {
    server.registerTool(
      names.get(info.id)!,
      {
        title: `Ask ${info.id}`,
        description: describe(info),
        inputSchema: AskInput,
        annotations: { readOnlyHint: true, openWorldHint: info.kind === "llm" },
      },
      async ({ question, messages }, extra) => {
        if (!question && !messages)
          return errorResult("Give either 'question' (a string) or 'messages' (a conversation).");
        const conversation: ChatMessage[] = messages ?? [{ role: "user", content: question! }];
        if (question && messages) conversation.push({ role: "user", content: question });
        const agent = agents.resolve(principal.projectId, info.modelId);
        if (!agent) return errorResult(`The agent "${info.id}" no longer exists in this project.`);
        // Every run is metered and limited like a chat completion: one request unit and its tokens.
        let metered: McpMeteredRun;
        try {
          metered = await deps.startRun({
            model: agent.modelId,
            messages: conversation,
            agentCap: agent.maxCompletionTokens,
          });
        } catch (err) {
          return errorResult(failureMessage(err, `Asking "${info.id}"`));
        }
        const done = deps.busy(extra.sessionId);
        const signal = AbortSignal.any([extra.signal, deps.drainDeadline]);
        const progressToken = extra._meta?.progressToken;
        let answer = "";
        let fragments = 0;
        let outcome: ChatOutcome = "ok";
        try {
          // Without a progress token nobody watches the stream: an llm agent may ask its upstream for one reply.
          const request = { messages: conversation, stream: progressToken === undefined ? false : undefined };
          for await (const event of agent.run(request, {
            projectId: principal.projectId,
            signal,
            upstreamSignal: signal,
            log: deps.log,
          })) {
            metered.saw(event);
            // An llm agent relays its upstream's answer: its text is read off the way.
            const texts =
              event.type === "contents"
                ? event.texts
                : event.type === "content" || event.type === "chunks" || event.type === "completion"
                  ? [event.text]
                  : [];
            for (const text of texts) {
              if (!text) continue;
              answer += text;
              fragments++;
              if (progressToken !== undefined) {
                await extra.sendNotification({
                  method: "notifications/progress",
                  params: { progressToken, progress: fragments, message: text },
                });
              }
            }
          }
        } catch (err) {
          outcome = signal.aborted ? "client_closed" : "error";
          if (signal.aborted) return errorResult(`The agent "${info.id}" was stopped before it finished.`);
          deps.log.warn({ err, agent: info.id }, "mcp agent tool failed");
          return errorResult(failureMessage(err, `Asking "${info.id}"`));
        } finally {
          metered.end(outcome, progressToken !== undefined);
          done();
        }
        return textResult(answer);
      },
    );
  }
}
