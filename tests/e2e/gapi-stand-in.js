// A thin stand-in for https://apis.google.com/js/api.js, which cannot be reached from this
// machine (DESIGN 5). It implements only what the Firebase Auth SDK and the Auth emulator's
// helper iframe use: gapi.load('gapi.iframes'), getContext().open() for the parent page and
// getContext().getParentIframe() inside the iframe, with register/send/ping/restyle carried
// over window.postMessage. Served by tests/e2e/federated-sign-in.spec.ts through page routing.
(function () {
  var TAG = '__gapiStandIn';
  var nextId = 0;

  function channel(targetWindow) {
    var handlers = {};
    var pending = {};
    window.addEventListener('message', function (event) {
      var msg = event.data;
      if (event.source !== targetWindow || !msg || msg[TAG] === undefined) return;
      if (msg[TAG] === 'call' && handlers[msg.type]) {
        var result = handlers[msg.type](msg.data);
        Promise.resolve(result).then(function (value) {
          targetWindow.postMessage({ __gapiStandIn: 'reply', id: msg.id, result: [value] }, '*');
        });
      } else if (msg[TAG] === 'reply' && pending[msg.id]) {
        pending[msg.id](msg.result);
        delete pending[msg.id];
      }
    });
    return {
      register: function (type, handler) {
        handlers[type] = handler;
      },
      send: function (type, data, callback) {
        var id = 'm' + nextId++;
        pending[id] = callback || function () {};
        targetWindow.postMessage({ __gapiStandIn: 'call', id: id, type: type, data: data }, '*');
      },
      ping: function (callback) {
        if (callback) callback();
        return Promise.resolve();
      },
      restyle: function () {
        return Promise.resolve();
      },
    };
  }

  var context = {
    open: function (options, onOpened) {
      return new Promise(function (resolve) {
        var frame = document.createElement('iframe');
        var attributes = options.attributes || {};
        Object.keys(attributes.style || {}).forEach(function (k) {
          frame.style[k] = attributes.style[k];
        });
        frame.setAttribute('aria-hidden', 'true');
        frame.addEventListener(
          'load',
          function () {
            resolve(onOpened(channel(frame.contentWindow)));
          },
          { once: true },
        );
        frame.src = options.url;
        (options.where || document.body).appendChild(frame);
      });
    },
    getParentIframe: function () {
      return channel(window.parent);
    },
  };

  window.gapi = {
    load: function (_name, options) {
      (typeof options === 'function' ? options : options.callback)();
    },
    iframes: {
      CROSS_ORIGIN_IFRAMES_FILTER: function () {
        return true;
      },
      Iframe: function () {},
      getContext: function () {
        return context;
      },
    },
  };

  var script = document.currentScript;
  var onload = script && new URL(script.src).searchParams.get('onload');
  if (onload && typeof window[onload] === 'function') window[onload]();
  if (typeof window.gapi_onload === 'function') window.gapi_onload();
})();
