-- a small recursive script: naive Fibonacci, some calls through pcall
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
local function guarded(n)
  local ok, v = pcall(fib, n)
  return ok and v or 0
end
local s = 0
for i = 1, 18 do s = s + guarded(i) end
print(s)
