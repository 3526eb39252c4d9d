import { type Html, html } from '../html.js';
import { renderNotice } from './layout.js';

/** A refused form: what to say, and the field it is about (its input's id), when one is. */
export interface FormProblem {
  readonly text: string;
  readonly field?: string;
}

/**
 * A field's accessible state: described by its hint, and when the problem is about it, invalid,
 * described by the message too, and focused as the page opens (autofocus works without script;
 * docs/app.md#what-a-form-did).
 */
export function fieldState(field: string, problem: FormProblem | undefined, hint?: string): Html | '' {
  const ids = [hint, problem?.field === field ? `${field}-error` : undefined].filter((id) => id !== undefined);
  const described = ids.length === 0 ? '' : html` aria-describedby="${ids.join(' ')}"`;
  return problem?.field === field ? html`${described} aria-invalid="true" autofocus` : described;
}

/** The message of a problem about `field`, to put just after it. */
export function renderFieldError(field: string, problem: FormProblem | undefined): Html | '' {
  if (problem?.field !== field) return '';
  return html`<p id="${field}-error" class="field-error">${problem.text}</p>`;
}

/** A refusal about the whole form, said where the form is, with the focus. */
export function renderFormRefusal(problem: FormProblem | undefined): Html | '' {
  if (problem === undefined || problem.field !== undefined) return '';
  return renderNotice({ kind: 'refused', text: problem.text });
}
