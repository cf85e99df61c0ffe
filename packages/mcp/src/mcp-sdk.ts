// The MCP SDK's classes and schemas, loaded by the first MCP server a process makes rather than at its start: the
// api serves MCP on one route that most installs never call, and the SDK (with its schemas) is ~6 MB of the api's
// heap, which the old-space cap and its growing factor multiply into peak RSS (docs/performance.md). Types are
// imported statically; they cost nothing at run time.
export async function loadMcpSdk() {
  const [server, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    McpServer: server.McpServer,
    ResourceTemplate: server.ResourceTemplate,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
  };
}

export type McpSdk = Awaited<ReturnType<typeof loadMcpSdk>>;
