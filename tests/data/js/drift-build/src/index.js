const isNumber = require("is-number");

module.exports = function add(a, b) {
  if (!isNumber(a) || !isNumber(b)) throw new TypeError("add takes numbers");
  return Number(a) + Number(b);
};
