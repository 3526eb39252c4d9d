// Progressive enhancement for the end of an app-page session (docs/app.md#staying-signed-in):
// a few minutes before the session ends, its warning shows with "Stay signed in"; once it has
// ended, the way back to a new link.
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
    stay.elements.back.value = location.pathname;
  });
}
