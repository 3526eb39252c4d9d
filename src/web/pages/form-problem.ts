import { type Html, html } from '../html.js';
import { renderNotice } from './layout.js';

/** A refused form: what to say, and the fields it is about (their inputs' ids), when it is. */
export interface FormProblem {
  readonly text: string;
  /** The first has the focus; the message follows the last. */
  readonly fields?: readonly string[];
  /** The id of a message the page always has (a script shows it too), instead of one made here. */
  readonly messageId?: string;
}

function messageIdOf(problem: FormProblem): string {
  return problem.messageId ?? `${problem.fields?.[0] ?? 'form'}-error`;
}

/**
 * A field's accessible state: described by its hint, and when the problem is about it, invalid,
 * described by the message too, and (the first field) focused as the page opens: autofocus
 * works without script (docs/app.md#what-a-form-did).
 */
export function fieldState(field: string, problem: FormProblem | undefined, hint?: string): Html | '' {
  const fields = problem?.fields ?? [];
  const about = problem !== undefined && fields.includes(field);
  const ids = [hint, about ? messageIdOf(problem) : undefined].filter((id) => id !== undefined);
  const described = ids.length === 0 ? '' : html` aria-describedby="${ids.join(' ')}"`;
  if (!about) return described;
  return html`${described} aria-invalid="true"${fields[0] === field ? html` autofocus` : ''}`;
}

/** The message of a problem about fields, to put just after the last of them. */
export function renderFieldError(field: string, problem: FormProblem | undefined): Html | '' {
  if (problem?.messageId !== undefined || problem?.fields?.at(-1) !== field) return '';
  return html`<p id="${messageIdOf(problem)}" class="field-error">${problem.text}</p>`;
}

/** A refusal about the whole form, said where the form is, with the focus. */
export function renderFormRefusal(problem: FormProblem | undefined): Html | '' {
  if (problem === undefined || (problem.fields ?? []).length > 0) return '';
  return renderNotice({ kind: 'refused', text: problem.text });
}
