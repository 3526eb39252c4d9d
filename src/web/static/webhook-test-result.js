// "Send a test" (docs/app.md#a-test-calls-result): while the call is on its way, ask the page's
// own listener every second for its notice and the endpoint's last calls, as the page renders
// them, and put them in place when the result is there. The notice stays the same element, a
// live region (role=status), so a screen reader says the new words. Without script, or when no
// result comes within a minute, the notice's "Show its result" link loads the page again.
const notice = document.querySelector('p[data-poll]');
if (notice !== null) {
  const link = notice.querySelector('a[data-show-result]');
  if (link !== null) link.hidden = true;
  let tries = 0;
  const giveUp = () => {
    if (link !== null) link.hidden = false;
  };
  const ask = async () => {
    tries += 1;
    const response = await fetch(notice.dataset.poll, { credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) return giveUp();
    const fragment = new DOMParser().parseFromString(await response.text(), 'text/html');
    const result = fragment.getElementById(notice.id);
    if (result === null || result.hasAttribute('data-poll')) {
      if (tries < 60) setTimeout(() => ask().catch(giveUp), 1000);
      else giveUp();
      return;
    }
    notice.className = result.className;
    notice.replaceChildren(...result.childNodes);
    notice.removeAttribute('data-poll');
    for (const calls of fragment.querySelectorAll('[data-calls]'))
      document.getElementById(calls.id)?.replaceWith(calls);
  };
  setTimeout(() => ask().catch(giveUp), 1000);
}
