import type { Response } from 'express';
import { z } from 'zod';
import { fieldsOf, sendError, type SandboxErrorCode } from './errors.js';

/** A 400 the sandbox answers instead of acting. */
export interface Refusal {
  code: SandboxErrorCode;
  message: string;
  details: Record<string, unknown>;
}

/** One bad field, as zod reported it once unions are unwrapped. */
export type FlatIssue = z.core.$ZodIssue;

/**
 * Picks a documented error code for one bad field. `value` is what the request held at the issue's path
 * (undefined when absent). Returns null to leave the issue to the generic `VALIDATION_ERROR`.
 */
export type IssueClassifier = (issue: FlatIssue, value: unknown) => { code: SandboxErrorCode; message: string } | null;

/** Sends a refusal as a 400 error body. */
export function sendRefusal(res: Response, refusal: Refusal): void {
  sendError(res, 400, refusal.code, refusal.message, refusal.details);
}

/** The value inside `body` at `path`, or undefined. */
export function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = body;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Replaces each `invalid_union` issue by the issues of the branch that fits the input best (the branch
 * whose failure is not a type mismatch at its root), with paths made absolute, so a bad address in an
 * email `to` array reads `to.3: Invalid email address` rather than `to: Invalid input`.
 */
export function flattenIssues(issues: readonly FlatIssue[]): FlatIssue[] {
  const out: FlatIssue[] = [];
  for (const issue of issues) {
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) {
      out.push(issue);
      continue;
    }
    const branch =
      issue.errors.find((errs) => !errs.some((e) => e.code === 'invalid_type' && e.path.length === 0)) ?? null;
    if (branch === null) {
      out.push(issue);
      continue;
    }
    out.push(...flattenIssues(branch.map((e) => ({ ...e, path: [...issue.path, ...e.path] }) as FlatIssue)));
  }
  return out;
}

/** Formats a path for messages: `messages[3].to`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out || '(body)';
}

/**
 * Parses `body` with `schema`. On failure, the first issue the classifier maps to a specific code decides
 * the refusal; otherwise it is `VALIDATION_ERROR`. Either way `details.fields` lists every bad field
 * (`{ path, message }`), and `details.index` names the message of a bulk request when the path has one.
 */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  body: unknown,
  classify: IssueClassifier,
): { ok: true; value: z.output<S> } | { ok: false; refusal: Refusal } {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = flattenIssues(parsed.error.issues);
  const fields = fieldsOf(new z.ZodError(issues));
  for (const issue of issues) {
    const decided = classify(issue, valueAt(body, issue.path));
    if (decided) {
      const details: Record<string, unknown> = { fields };
      if (issue.path[0] === 'messages' && typeof issue.path[1] === 'number') details.index = issue.path[1];
      return { ok: false, refusal: { ...decided, details } };
    }
  }
  const first = issues[0];
  const summary = first ? `${formatPath(first.path)}: ${first.message}` : 'The request is not valid.';
  return { ok: false, refusal: { code: 'VALIDATION_ERROR', message: `Invalid request. ${summary}`, details: { fields } } };
}

/** Classifies a bad phone field that is present (a missing one stays a `VALIDATION_ERROR`). */
export function phoneIssue(issue: FlatIssue, value: unknown): { code: SandboxErrorCode; message: string } | null {
  if (value === undefined || issue.code === 'invalid_type') return null;
  return {
    code: 'INVALID_PHONE_NUMBER',
    message: `${formatPath(issue.path)} is not a valid phone number: give 8 to 15 digits, without a + prefix.`,
  };
}
