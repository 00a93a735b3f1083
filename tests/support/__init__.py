"""Shared test helpers: the fixtures web server and the MCP stdio client."""
