// Drives Hindsight with an official MCP TypeScript client and prints, as one JSON document, what each
// call gave back: the result the model would see, or the exception the client raised.
//
//   node probe.mjs <sdk|client> <legacy|2026-07-28> <MCP URL> <token>
//
// sdk    = @modelcontextprotocol/sdk 1.x (2025-11-25 era only)
// client = @modelcontextprotocol/client 2.x (legacy: 2025-11-25 initialize; 2026-07-28: pinned modern era)
const [library, era, url, token] = process.argv.slice(2);

async function connect() {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (library === "sdk") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = new Client({ name: "hindsight-matrix", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
    return client;
  }
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const mode = era === "legacy" ? "legacy" : { pin: era };
  const client = new Client({ name: "hindsight-matrix", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}

async function attempt(client, name, args) {
  try {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
    return { isError: result.isError === true, text, structuredContent: result.structuredContent ?? null };
  } catch (error) {
    return { thrown: { name: error?.constructor?.name, code: error?.code ?? null, message: String(error?.message ?? error) } };
  }
}

const client = await connect();
const tools = (await client.listTools()).tools; // caches the output schemas strict clients validate against
const out = {
  tools: tools.map((t) => ({ name: t.name, title: t.title ?? null, annotations: t.annotations ?? null })),
  write: await attempt(client, "memory_write", { content: "The matrix probe prefers tea" }),
  search: await attempt(client, "memory_search", { query: "tea" }),
  bad_argument: await attempt(client, "memory_search", { query: "tea", top_k: 1000 }),
  unknown_argument: await attempt(client, "memory_search", { query: "tea", "top-k": 5 }),
  not_found: await attempt(client, "memory_get", { id: "00000000-0000-7000-8000-000000000000" }),
  unknown_tool: await attempt(client, "memory_wrte", { content: "x" }),
};
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
