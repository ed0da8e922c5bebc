import type { Command } from "./command";

/**
 * `events retention`: the events and webhook deliveries retention job (part 3), run now.
 * Not an `apps webhooks` command: it is the operator's, for every app at once.
 */
export const eventsRetention: Command = {
  usage: "events retention [--json]",
  summary: "Run the events and webhook deliveries retention job now (servers with a delivery worker also run it hourly)",
  options: {},
  positionals: [],
  async run() {
    const { runEventRetention } = await import("../events/worker");
    const result = await runEventRetention();
    return {
      json: { partitions_created: result.created, events_deleted: result.events, deliveries_deleted: result.deliveries },
      text: `Created ${result.created} day partitions, deleted ${result.events} events and ${result.deliveries} delivery attempts.`,
    };
  },
};
