// The relay's MCP server: tools, resources and a prompt over the typed REST client, for any MCP transport (the
// CLI's stdio `relay mcp`, the api's Streamable HTTP `/mcp`). It imports nothing of the server: it is a client.
export { createRelayMcpServer, type RelayMcpServerOptions } from './relay-mcp-server';
export { RELAY_TOOLS } from './tool-catalog';
export type { AnyRelayTool, RelayTool } from './tool-kit';
export { renderToolsTable, withToolsTable } from './tools-doc';
