#include <stdio.h>
__attribute__((noinline)) long work(long n){ long s=0; for(long i=0;i<n*100;i++) s+=i^n; return s; }
__attribute__((noinline)) long fib(long n){ if(n<2) return work(n+1); return fib(n-1)+fib(n-2); }
__attribute__((noinline)) long odd(long n);
__attribute__((noinline)) long even(long n){ work(3); return n==0?1:odd(n-1); }
__attribute__((noinline)) long odd(long n){ work(2); return n==0?0:even(n-1); }
int main(){ printf("%ld %ld\n", fib(12), even(30)); return 0; }
