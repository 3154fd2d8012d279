// A tiny helper for building DOM trees without a framework.

/**
 * `h('button', {class: 'primary', onclick: fn, 'aria-label': 'Roll'}, 'Roll')`: attributes whose
 * name starts with `on` become listeners; `null`, `false` and `undefined` attributes are skipped;
 * children may be strings, nodes, arrays or nothing.
 */
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'value') node.value = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Asks a yes/no question in a modal <dialog>; resolves true for yes. */
export function confirmDialog(question, yes, no = 'Cancel') {
  return new Promise((resolve) => {
    const dialog = h('dialog', { 'aria-label': question, 'data-testid': 'confirm-dialog' },
      h('p', {}, question),
      h('div', { class: 'row' },
        h('button', { class: 'danger', value: 'yes', 'data-testid': 'confirm-yes' }, yes),
        h('button', { value: 'no', autofocus: true, 'data-testid': 'confirm-no' }, no)));
    dialog.addEventListener('click', (event) => {
      if (event.target.tagName === 'BUTTON') dialog.close(event.target.value);
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'yes');
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
