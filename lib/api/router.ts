// TODO(issue 4): the API route table. Placeholder so the server boots before the API exists.
export async function handleApiRequest(_request: Request): Promise<Response> {
  return Response.json({ error: { code: "not_found", message: "No such endpoint." } }, { status: 404 });
}
