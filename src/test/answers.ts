import assert from 'node:assert/strict';

/** An HTTP answer as `app.inject` and the test callers give it. */
type Answer = Promise<{ statusCode: number; body: string }>;

/** The JSON body of an answer that must have `status` (200 unless told); its body in the failure. */
export async function ok<T>(response: Answer, status = 200): Promise<T> {
  const answer = await response;
  assert.equal(answer.statusCode, status, answer.body);
  return JSON.parse(answer.body) as T;
}

/** The problem+json body of an answer that must have `status`; its body in the failure. */
export async function problem(
  response: Answer,
  status: number,
): Promise<{ title: string; detail?: string; errors?: { pointer: string; detail: string }[] }> {
  const answer = await response;
  assert.equal(answer.statusCode, status, answer.body);
  return JSON.parse(answer.body) as { title: string; detail?: string };
}
