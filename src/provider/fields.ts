import type { ProviderFieldError } from './errors.js';

/** The subset of a zod issue that {@link fieldsOfIssues} reads (zod's own issue type is assignable). */
interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  errors?: IssueLike[][];
}

/**
 * Lists the bad fields of a failed zod parse as `{ path, message }`: one entry per unknown key, and for a
 * union (email `to`: one address or a list) the issues of the alternative that had the right type, so
 * that "must have at most 150 entries" is reported rather than "Invalid input".
 */
export function fieldsOfIssues(issues: readonly IssueLike[], prefix: PropertyKey[] = []): ProviderFieldError[] {
  const out: ProviderFieldError[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      for (const key of issue.keys) out.push({ path: joinPath([...path, key]), message: 'is not a known field' });
    } else if (issue.code === 'invalid_union' && issue.errors) {
      const typed = issue.errors.filter((branch) => !branch.some(isTypeMismatch));
      if (typed.length === 1) out.push(...fieldsOfIssues(typed[0]!, path));
      else out.push({ path: joinPath(path), message: issue.message });
    } else {
      out.push({ path: joinPath(path), message: issue.message });
    }
  }
  return out;
}

/** A root-level issue saying the value is of another type (or another literal) than this alternative's. */
function isTypeMismatch(issue: IssueLike): boolean {
  return issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value');
}

function joinPath(path: PropertyKey[]): string {
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}
