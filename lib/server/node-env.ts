/**
 * The first module `server.ts` loads, so it runs before anything imports React.
 *
 * React picks its development or production build from NODE_ENV the first time it is loaded, and
 * Next's production renderer only works with the production build (the development build's
 * `dispatcher.getOwner` meets a renderer without it: every Pages Router page answers 500). So the
 * server decides NODE_ENV itself, from how it was started, whatever the environment holds:
 * `npm start` and the tests are "production", `npm run dev` (`--dev`) is "development".
 */
const mode = process.argv.includes("--dev") ? "development" : "production";
(process.env as Record<string, string>).NODE_ENV = mode;

export {};
