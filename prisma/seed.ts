// TODO(issue 2): the demo world. Placeholder so the server boots.
export async function seedDemoWorld(_options: { log?: (line: string) => void } = {}): Promise<{ seeded: boolean }> {
  return { seeded: false };
}
