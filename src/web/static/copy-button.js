// Progressive enhancement for the app page: a "Copy" button beside a new key or webhook
// secret. Without script the button stays hidden and it can be selected and copied by hand.
for (const button of document.querySelectorAll('button[data-copy-from]')) {
  const source = document.getElementById(button.dataset.copyFrom);
  if (source === null || navigator.clipboard === undefined) continue;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(source.textContent.trim()).then(
      () => {
        button.textContent = 'Copied';
      },
      () => {
        button.textContent = 'Select it and copy it';
      },
    );
  });
}
