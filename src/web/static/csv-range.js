// The CSV form's two days, tied as a person changes them (docs/app.md#the-csv-downloads-dates):
// the first at most the last (max, min), and a range the wrong way round said beside them, in
// the message the page always has. Without script the server checks the same and says it there.
const first = document.getElementById('csv-from');
const last = document.getElementById('csv-to');
const message = document.getElementById('csv-range-error');
if (first !== null && last !== null && message !== null) {
  const tie = () => {
    last.min = first.value;
    first.max = last.value;
    const inverted = first.value !== '' && last.value !== '' && first.value > last.value;
    message.hidden = !inverted;
    for (const field of [first, last]) {
      if (inverted) {
        field.setAttribute('aria-invalid', 'true');
        field.setAttribute('aria-describedby', message.id);
      } else if (field.getAttribute('aria-describedby') === message.id) {
        field.removeAttribute('aria-invalid');
        field.removeAttribute('aria-describedby');
      }
    }
  };
  first.addEventListener('input', tie);
  last.addEventListener('input', tie);
  tie();
}
