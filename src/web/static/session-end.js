// Progressive enhancement for the end of an app-page session (docs/app.md#staying-signed-in), a
// module (deferred, its names its own):
// - a few minutes before the session ends, its warning shows with "Stay signed in"; once it has
//   ended, the way back to a new link;
// - what a person typed in a form is kept in this tab when they leave a page, and put back on
//   the next signed-in page only when a signed-out page came between (the session ended while
//   they typed) or they chose to stay signed in. Visible text fields and lists only: never a
//   hidden field (the form's token, its one-time id), never a password.
const DRAFTS = 'meal-export:drafts';
const WAITING = 'meal-export:drafts-waiting';
const TEXT_TYPES = ['text', 'url', 'date', 'search', 'email', 'number', 'tel'];

const signedIn = document.querySelector('form[action="/logout"]') !== null;

function draftFields(form) {
  return [...form.elements].filter(
    (field) =>
      field.name !== '' &&
      (field.tagName === 'SELECT' ||
        field.tagName === 'TEXTAREA' ||
        (field.tagName === 'INPUT' && TEXT_TYPES.includes(field.type))),
  );
}

function changed(field) {
  if (field.tagName === 'SELECT')
    return [...field.options].some((option) => option.selected !== option.defaultSelected);
  return field.value !== field.defaultValue;
}

function saveDrafts() {
  const drafts = {};
  for (const form of document.forms) {
    const fields = draftFields(form).filter(changed);
    if (fields.length === 0) continue;
    drafts[form.getAttribute('action')] = Object.fromEntries(fields.map((field) => [field.name, field.value]));
  }
  if (Object.keys(drafts).length > 0) sessionStorage.setItem(DRAFTS, JSON.stringify(drafts));
}

function restoreDrafts(drafts) {
  for (const form of document.forms) {
    const draft = drafts[form.getAttribute('action')];
    if (draft === undefined) continue;
    let restored = false;
    for (const field of draftFields(form)) {
      const value = draft[field.name];
      if (typeof value !== 'string') continue;
      if (field.tagName === 'SELECT' && ![...field.options].some((option) => option.value === value)) continue;
      field.value = value;
      restored = true;
    }
    if (!restored) continue;
    const note = document.createElement('p');
    note.className = 'notice notice-done';
    note.setAttribute('role', 'status');
    note.textContent = 'What you had typed is back in this form: check it, then send it.';
    form.before(note);
  }
}

function readDrafts() {
  try {
    return JSON.parse(sessionStorage.getItem(DRAFTS) ?? '{}');
  } catch {
    return {};
  }
}

function keepDrafts() {
  if (signedIn) {
    if (sessionStorage.getItem(WAITING) !== null) restoreDrafts(readDrafts());
    // Drafts a page left are answered by now: the form was sent, or the person moved on.
    sessionStorage.removeItem(DRAFTS);
    sessionStorage.removeItem(WAITING);
    window.addEventListener('pagehide', saveDrafts);
  } else if (sessionStorage.getItem(DRAFTS) !== null) {
    sessionStorage.setItem(WAITING, '1');
  }
}

try {
  keepDrafts();
} catch {
  // Storage turned off in this browser: the forms work as they do without script.
}

const warning = document.querySelector('.session-warning[data-ends-in]');
if (warning !== null) {
  // Durations from the server's own clock, so a browser whose clock is off still warns on time.
  const endsAt = Date.now() + Number(warning.dataset.endsIn);
  const warnBefore = Number(warning.dataset.warnBefore);
  const stay = warning.querySelector('form');
  let timer;
  const update = () => {
    clearTimeout(timer);
    const left = endsAt - Date.now();
    warning.hidden = left > warnBefore;
    if (left <= 0) {
      for (const part of warning.querySelectorAll('.session-ending, form')) part.hidden = true;
      warning.querySelector('.session-ended').hidden = false;
      return;
    }
    timer = setTimeout(update, left > warnBefore ? left - warnBefore : left);
  };
  update();
  // A sleeping laptop or a background tab delays timers: look again when the page is seen.
  document.addEventListener('visibilitychange', update);
  stay?.addEventListener('submit', () => {
    stay.elements.back.value = location.pathname + location.search;
    sessionStorage.setItem(WAITING, '1');
  });
}
