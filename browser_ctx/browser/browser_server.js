// Node side of `browser-ctx browser-server`: Playwright's documented `chromium.launchServer` with the
// Chromium browser-ctx found, listening on 127.0.0.1 at a secret path that only the Python front end knows.
//
// Run by browser_ctx/browser/browser_server.py with Playwright's own Node driver:
//   node browser_server.js <playwright driver package dir>
// Reads one JSON line on stdin: {executablePath, args, headless, wsPath}.
// Writes one JSON line on stdout once listening: {"wsEndpoint": "ws://127.0.0.1:PORT/<wsPath>"}.
// Exits (code 3) when the browser closes or crashes, so the front end can start a new one; closes the
// browser on SIGTERM/SIGINT or when stdin closes (the front end went away).
'use strict';

const readline = require('readline');

async function main(packageDir) {
  const { chromium } = require(packageDir);
  const input = readline.createInterface({ input: process.stdin });
  const line = await new Promise((resolve) => input.once('line', resolve));
  const config = JSON.parse(line);
  const server = await chromium.launchServer({
    executablePath: config.executablePath,
    args: config.args,
    ignoreDefaultArgs: config.ignoreDefaultArgs,
    headless: config.headless,
    host: '127.0.0.1',
    port: 0,
    wsPath: config.wsPath,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  let closing = false;
  const stop = async (code) => {
    if (closing) return;
    closing = true;
    try {
      await server.close();
    } finally {
      process.exit(code);
    }
  };
  server.on('close', () => {
    if (!closing) process.exit(3);
  });
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));
  input.on('close', () => stop(0));
  process.stdout.write(JSON.stringify({ wsEndpoint: server.wsEndpoint() }) + '\n');
}

main(process.argv[2]).catch((error) => {
  process.stderr.write(`browser-server: ${error && error.message ? error.message.split('\n')[0] : error}\n`);
  process.exit(2);
});
